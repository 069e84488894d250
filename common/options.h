/*
 * options: one way for every command to read its options and to say what is wrong with them, so
 * `verify`, `solve` and the rest answer a mistake alike (issue 23).
 *
 * An option error is always exactly two lines on stderr and the result MA_EUSAGE (exit status 2):
 *     millaudit verify: option '--threads' needs a value
 *     try 'millaudit verify --help'
 * An unknown long option gets the nearest known names as a suggestion, like a mistyped command:
 *     millaudit verify: unknown option '--treads'; did you mean '--threads'?
 *
 * ma_opt_next wraps getopt_long (the caller sets optind = 1 first, as for getopt): it returns the
 * next option's value as getopt_long does, -1 at the end, or MA_OPT_ERROR after printing the two
 * lines for a missing value, an unknown or ambiguous option, or a value given to an option that
 * takes none. shortopts are the command's short options ("h" at least, so -h is --help); a
 * leading ':' is added by ma_opt_next, and so is "j:" for a command with a --threads option that
 * gave -j no meaning of its own: `-j N` is `--threads N` (as make and ninja read it). cmd names the command in messages ("verify",
 * "manifest create").
 *
 * ma_opt_error prints "millaudit CMD: <message>" and the hint line for any other mistake on the
 * command line (a malformed value, a missing argument, options that exclude each other) and
 * returns MA_EUSAGE. ma_opt_long reads a decimal integer in lo..hi for option opt, digits only
 * (a leading '-' only when lo < 0), refusing anything else ("", "1x", " 1", "+1", out of range)
 * with ma_opt_error; returns 0 with *out set, or MA_EUSAGE leaving *out alone.
 *
 * ma_opt_edit_distance is the optimal string alignment distance (Levenshtein plus adjacent
 * transpositions), capped at 32; ma_opt_suggest writes the names of names[0..n) nearest to word,
 * each after lead and quoted ("'--threads'" with lead "--", "'stats' or 'solve'"), into buf, or "" when none is near enough for the word's
 * length (a prefix of at least two characters counts as near). Neither prints anything.
 */
#ifndef MA_OPTIONS_H
#define MA_OPTIONS_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

#define MA_OPT_ERROR '?'

int ma_opt_next(const char *cmd, int argc, char **argv, const char *shortopts,
                const struct option *longopts);

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
int ma_opt_error(const char *cmd, const char *fmt, ...);

/* The unknown-option error of ma_opt_next for a command that reads its options by hand (probe:
 * a board may start with '-'): arg as typed, suggestions from longopts. Returns MA_EUSAGE. */
int ma_opt_unknown(const char *cmd, const char *arg, const struct option *longopts);

int ma_opt_long(const char *cmd, const char *opt, const char *text, long lo, long hi, long *out);

/* A byte count as options give one: decimal digits with an optional binary unit K, M or G (either
 * case: "123", "64K", "16M", "1G"); more than 0 and no overflow. 0 with *out set, or -1 leaving
 * *out alone (the caller words the error with ma_opt_error, naming its range). */
int ma_opt_bytes(const char *text, uint64_t *out);

/* The one integer parser of the command line: ma_opt_long's rules (decimal digits only, a leading
 * '-' only when lo < 0, lo..hi) without the message, for options that word their refusal
 * themselves (a run id, a count). Returns 0 with *out set, or -1 leaving *out alone. */
int ma_opt_parse_long(const char *text, long lo, long hi, long *out);

int ma_opt_edit_distance(const char *a, const char *b);
void ma_opt_suggest(char *buf, size_t len, const char *word, const char *const *names, size_t n,
                    const char *lead);

#endif
