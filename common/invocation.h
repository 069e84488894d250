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

/* How a run describes itself (invocation.c), the same for every command that records one.
 * ma_cli_shell_quote appends word to buf (NUL-terminated, size len) so that a POSIX shell reads it
 * back as exactly that word: as is when it has only letters, digits and _@%+=:,./- (and is not
 * empty); else in single quotes, a ' inside written '\''; a word holding control bytes (newline,
 * ESC, DEL) as bash's $'...' with \xHH escapes instead, so the recorded line stays one printable
 * line. Returns 0, or -1 leaving buf unchanged when the quoted word does not fit.
 * ma_cli_run_identity fills host with the host name ("unknown" if it cannot be read) and cmdline
 * with "millaudit" followed by argv[0..argc), each after one space and shell-quoted, so the line
 * can be pasted back into a shell. Pass the command line as typed (ma_cli_invocation), not a
 * command's own argv after getopt_long has permuted it. A word that does not fit whole is left out
 * with everything after it, and " ..." marks the cut. */
#include <stddef.h>

int ma_cli_shell_quote(char *buf, size_t len, const char *word);
void ma_cli_run_identity(char *host, size_t host_len, char *cmdline, size_t cmdline_len, int argc,
                         char *const *argv);

#endif
