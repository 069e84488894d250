/* Placeholder until the owning module lands; replaced by the real command. */
#include <stdio.h>
#include "cli/commands.h"
#include "common/ma_error.h"

int ma_cmd_probe(int argc, char **argv)
{
    (void)argc;
    fprintf(stderr, "millaudit %s: not built yet\n", argv[0]);
    return MA_EXIT_INTERNAL;
}
