/* cli_util: small helpers several commands print or record with, kept in one place so every
 * command escapes JSON and describes its run (host, command line) the same way.
 *
 * Contract: nothing here fails or allocates; output goes only to the FILE the caller gives.
 * ma_cli_json_string writes s as a JSON string: '"' and '\\' are backslash-escaped, bytes below
 * 0x20 become \u00XX, all other bytes pass through unchanged (NULL is written as ""). Commands
 * whose JSON must escape differently (cmd_diff escapes non-ASCII too) keep their own writer so
 * their output stays as documented.
 * ma_cli_run_identity fills host with the host name ("unknown" if it cannot be read) and cmdline
 * with "millaudit" followed by every argv word, each after one space, cut at cmdline_len - 1. */
#ifndef MA_CLI_UTIL_H
#define MA_CLI_UTIL_H

#include <stddef.h>
#include <stdio.h>

void ma_cli_json_string(FILE *out, const char *s);
/* A jansson string of s for the one JSON writer: s as is when it is valid UTF-8, else with every
 * byte that is not part of a valid sequence written as the text \xNN, so file names of any bytes
 * still give valid JSON (NULL gives ""). */
/* Non-zero when path is a database of Malom files (formats/source.h discovery says .sec or
 * .sec2), for the commands that still keep a separate Malom branch. */
int ma_cli_malom_database(const char *path);
struct json_t;
struct json_t *ma_cli_json_text(const char *s);

void ma_cli_run_identity(char *host, size_t host_len, char *cmdline, size_t cmdline_len, int argc,
                         char **argv);

#endif
