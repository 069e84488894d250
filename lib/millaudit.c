/* lib/millaudit: the one object of libmillaudit of its own; the rest of the library is the
 * checker's module archives (lib/CMakeLists.txt). It lets a program check at run time that the
 * library it loaded speaks the API its header describes. */
#include "millaudit.h"

MA_API int ma_api_version(void) { return MILLAUDIT_API_VERSION; }
MA_API const char *ma_version(void) { return MILLAUDIT_VERSION; }
MA_API int ma_version_number(void) { return MILLAUDIT_VERSION_NUMBER; }
