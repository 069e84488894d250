/* Linked into every module library so that a module directory that is still empty builds. */
extern const char ma_module_stamp[];
const char ma_module_stamp[] __attribute__((weak)) = "millaudit";
