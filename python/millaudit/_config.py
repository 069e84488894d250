"""Where the module finds libmillaudit. `cmake --install` replaces this file with one that names
the library installed beside the module (a path relative to this directory); this copy, for a
source tree, leaves it to $MILLAUDIT_LIBRARY or the dynamic loader."""
LIBRARY = None
SONAME = "libmillaudit.so.0"
