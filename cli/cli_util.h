/* cli_util: small helpers several commands print with, kept in one place so every command puts
 * text into its JSON and answers a mistake alike. How a run describes itself (host, command line,
 * ma_cli_run_identity) is in common/invocation.h, reading a named document in common/fileio.h.
 *
 * Contract: output goes only to the buffer the caller gives or to stderr for a refusal.
 */
#ifndef MA_CLI_UTIL_H
#define MA_CLI_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/invocation.h" /* ma_cli_invocation: the command line as typed */
#include "common/ma_error.h"
#include "common/options.h"


/* --shard I/N of verify, diff and manifest create: decimal I and N, 0 <= I < N <= 100000, and
 * nothing else ("3/2", "0/0", "x", "1/", "-1/2", " 1/2" are refused). Returns 0 with *index and
 * *count set, or -1 leaving them alone. */
int ma_cli_parse_shard(const char *text, unsigned *index, unsigned *count);


struct ma_output_input;

/* The output check of common/output.h (ma_output_check) done before any work, its refusal printed as
 * "millaudit CMD: message". A result (common/verdict.h): MA_OK when out_path may be written (or is
 * NULL), MA_EUSAGE when it names an input of the command, else the refusal's MA_E* code. */
int ma_cli_output_result(const char *cmd, const char *out_path, const char *role, int kind,
                         const struct ma_output_input *inputs, size_t n);


/* A mistyped action of a command with actions (`manifest chek`, `runs lst`): the usage error
 * "unknown action 'chek'; did you mean 'check'?" (or the list of the actions when none is near),
 * as a mistyped command gets from main. what names the word ("action", "subcommand"). Returns
 * MA_EUSAGE. */
int ma_cli_unknown_action(const char *cmd, const char *what, const char *word, const char *const *actions,
                          size_t n);

/* A run id given to option opt (--run, --since): MA_OK with *id set, or the usage error
 * "OPT TEXT: not a run id (a positive integer)" and MA_EUSAGE. */
int ma_cli_opt_run_id(const char *cmd, const char *opt, const char *text, int64_t *id);

/* A rendered document written to out_path atomically (ma_render_write_atomic), or to stdout when
 * out_path is NULL. MA_OK, or MA_EIO with err naming the path ("standard output: write failed:
 * <reason>"). */
int ma_cli_write_document(const char *out_path, const char *text, size_t len, ma_error *err);

/* ma_output_stdout_check (common/output.h): MA_OK, or MA_EIO after printing "millaudit CMD:
 * standard output: write failed: <reason>" on stderr, for a command whose output failed before it
 * ends (cli/main.c checks once more when every command ends). */
int ma_cli_stdout_flush(const char *cmd);

#endif
