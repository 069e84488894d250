/*
 * invocation: the command line as the user typed it. main() keeps a copy of argv before any getopt
 * call, and commands that record their command line receive it (argv[0] is the subcommand name, as
 * in the argv a command parses; argv[argc] is NULL). GNU getopt_long permutes the array it parses,
 * so the parsed argv is not the typed order. It lives in common/ because the dispatcher (cli/main.c)
 * builds it and may include nothing of either side.
 */
#ifndef MA_INVOCATION_H
#define MA_INVOCATION_H

typedef struct ma_cli_invocation {
    int argc;
    char *const *argv;
} ma_cli_invocation;

#endif
