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

/* A jansson string of s for the one JSON writer: ma_json_text of common/json_text.h, the one JSON
 * text escaper (kept under this name for the commands that call it; NULL gives ""). */
struct json_t;
struct json_t *ma_cli_json_text(const char *s);

/* --shard I/N of verify, diff and manifest create: decimal I and N, 0 <= I < N <= 100000, and
 * nothing else ("3/2", "0/0", "x", "1/", "-1/2", " 1/2" are refused). Returns 0 with *index and
 * *count set, or -1 leaving them alone. */
int ma_cli_parse_shard(const char *text, unsigned *index, unsigned *count);


/* The output check of common/output.h (ma_output_check) done before any work, its refusal printed as
 * "millaudit CMD: message". Returns 0 when out_path may be written (or is NULL), else the exit code:
 * 2 when it names an input of the command, 4 when it cannot be written. */
struct ma_output_input;
int ma_cli_check_output(const char *cmd, const char *out_path, const char *role, int kind,
                        const struct ma_output_input *inputs, size_t n);

/* The same check in the result convention of common/verdict.h: MA_OK, MA_EUSAGE when out_path names
 * an input, else the refusal's MA_E* code (the message printed as above). */
int ma_cli_output_result(const char *cmd, const char *out_path, const char *role, int kind,
                         const struct ma_output_input *inputs, size_t n);

/* A command-line mistake of command cmd in the result convention: ma_opt_error's two lines on
 * stderr, then MA_EUSAGE. */
#define MA_CLI_USAGE(...) (ma_opt_error(__VA_ARGS__), MA_EUSAGE)

/* A run id given to option opt (--run, --since): MA_OK with *id set, or the usage error
 * "OPT TEXT: not a run id (a positive integer)" and MA_EUSAGE. */
int ma_cli_opt_run_id(const char *cmd, const char *opt, const char *text, int64_t *id);

/* A rendered document written to out_path atomically (ma_render_write_atomic), or to stdout when
 * out_path is NULL. MA_OK, or MA_EIO with err naming the path ("stdout: write failed"). */
int ma_cli_write_document(const char *out_path, const char *text, size_t len, ma_error *err);

/* An exit status of the helpers above that still return one (ma_cli_check_output, ma_opt_*) as a
 * command result (common/verdict.h) that maps back to the same status: 0 MA_OK, 2 MA_EUSAGE,
 * 3 MA_EFORMAT, 4 MA_EIO, anything else MA_EINTERNAL. */
int ma_cli_result_of_status(int status);

#endif
