/* options: the one option-error path of every command (common/options.h). */
#include "common/options.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/ma_error.h"

#define MAX_OPTIONS 64

/* Prints s for a one-line message, control characters as '?' (a typo can hold an escape). */
static void put_word(FILE *out, const char *s, size_t len)
{
    for (size_t i = 0; i < len && s[i]; i++)
        fputc((unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i], out);
}

static void hint(const char *cmd)
{
    fprintf(stderr, "try 'millaudit %s --help'\n", cmd);
}

int ma_opt_error(const char *cmd, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "millaudit %s: ", cmd);
    put_word(stderr, msg, strlen(msg));
    fputc('\n', stderr);
    hint(cmd);
    return MA_EUSAGE;
}

int ma_opt_parse_long(const char *text, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    /* digits only (a '-' only where negative numbers are allowed): strtol alone takes " 1", "+1" */
    int ok = *text && !*end && !errno && v >= lo && v <= hi &&
             ((text[0] >= '0' && text[0] <= '9') || (text[0] == '-' && lo < 0));
    if (!ok)
        return -1;
    *out = v;
    return 0;
}

int ma_opt_long(const char *cmd, const char *opt, const char *text, long lo, long hi, long *out)
{
    if (ma_opt_parse_long(text, lo, hi, out))
        return ma_opt_error(cmd, "%s %s: not a number in %ld..%ld", opt, text, lo, hi);
    return 0;
}

int ma_opt_edit_distance(const char *a, const char *b)
{
    enum { CAP = 32 };
    size_t n = strlen(a), m = strlen(b);
    if (n >= CAP || m >= CAP)
        return CAP;
    int d[CAP + 1][CAP + 1];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int cost = a[i - 1] != b[j - 1];
            int v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v)
                v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[n][m];
}

/* As git does it: every name within the smallest distance found, if that distance is small for the
 * word's length; a prefix also counts. */
void ma_opt_suggest(char *buf, size_t len, const char *word, const char *const *names, size_t n,
                    const char *lead)
{
    if (!len)
        return;
    buf[0] = 0;
    int best = 1 << 30;
    size_t wl = strlen(word);
    for (size_t i = 0; i < n; i++) {
        int d = wl >= 2 && !strncmp(names[i], word, wl) ? 1 : ma_opt_edit_distance(word, names[i]);
        if (d < best)
            best = d;
    }
    int limit = wl <= 4 ? 1 : wl <= 7 ? 2 : 3;
    if (best > limit)
        return;
    int total = 0, k = 0;
    for (size_t i = 0; i < n; i++)
        total += (wl >= 2 && !strncmp(names[i], word, wl) ? 1 : ma_opt_edit_distance(word, names[i])) == best;
    size_t used = 0;
    for (size_t i = 0; i < n && used < len; i++) {
        int d = wl >= 2 && !strncmp(names[i], word, wl) ? 1 : ma_opt_edit_distance(word, names[i]);
        if (d != best)
            continue;
        k++;
        int w = snprintf(buf + used, len - used, "%s'%s%s'", k == 1 ? "" : k == total ? " or " : ", ", lead,
                         names[i]);
        if (w < 0 || (size_t)w >= len - used) {
            buf[used] = 0;
            return;
        }
        used += (size_t)w;
    }
}

/* The option as typed, without an attached "=value": "--treads" of "--treads=4". */
static size_t option_word(const char *arg)
{
    const char *eq = strchr(arg, '=');
    return eq && arg[0] == '-' && arg[1] == '-' ? (size_t)(eq - arg) : strlen(arg);
}

/* The long option the typed word names (exact, or the one option it abbreviates), or NULL. */
static const struct option *named(const struct option *longopts, const char *word, size_t len)
{
    const struct option *hit = NULL;
    int hits = 0;
    for (const struct option *o = longopts; o && o->name; o++) {
        if (strlen(o->name) == len && !strncmp(o->name, word, len))
            return o;
        if (!strncmp(o->name, word, len))
            hit = o, hits++;
    }
    return hits == 1 ? hit : NULL;
}

/* "unknown option '--treads'; did you mean '--threads'?" (no newline) */
static void unknown_long(const char *arg, size_t len, const struct option *longopts)
{
    const char *names[MAX_OPTIONS];
    size_t n = 0, ambiguous = 0;
    for (const struct option *p = longopts; p && p->name && n < MAX_OPTIONS; p++) {
        names[n++] = p->name;
        ambiguous += len > 2 && !strncmp(p->name, arg + 2, len - 2);
    }
    fputs(ambiguous > 1 ? "ambiguous option '" : "unknown option '", stderr);
    put_word(stderr, arg, len);
    fputc('\'', stderr);
    char word[64], near[256];
    snprintf(word, sizeof word, "%.*s", (int)(len - 2 < 60 ? len - 2 : 60), arg + 2);
    ma_opt_suggest(near, sizeof near, word, names, n, "--");
    if (near[0])
        fprintf(stderr, "; did you mean %s?", near);
}

int ma_opt_unknown(const char *cmd, const char *arg, const struct option *longopts)
{
    fprintf(stderr, "millaudit %s: ", cmd);
    if (arg[0] == '-' && arg[1] == '-') {
        unknown_long(arg, option_word(arg), longopts);
    } else {
        fputs("unknown option '", stderr);
        put_word(stderr, arg, strlen(arg));
        fputc('\'', stderr);
    }
    fputc('\n', stderr);
    hint(cmd);
    return MA_EUSAGE;
}

/* The --threads option of a command, or NULL: `-j N` is accepted for it, as make and ninja take it. */
static const struct option *threads_option(const char *shortopts, const struct option *longopts)
{
    if (shortopts && strchr(shortopts, 'j'))
        return NULL; /* the command gave -j a meaning of its own */
    for (const struct option *o = longopts; o && o->name; o++)
        if (!strcmp(o->name, "threads") && o->has_arg == required_argument && !o->flag)
            return o;
    return NULL;
}

int ma_opt_next(const char *cmd, int argc, char **argv, const char *shortopts,
                const struct option *longopts)
{
    char spec[64];
    const struct option *threads = threads_option(shortopts, longopts);
    snprintf(spec, sizeof spec, ":%s%s", shortopts ? shortopts : "", threads ? "j:" : "");
    opterr = 0;
    int before = optind, index = -1;
    int c = getopt_long(argc, argv, spec, longopts, &index);
    if (c == 'j' && threads && index < 0)
        return threads->val; /* -j N is --threads N (a long option whose value is 'j' set index) */
    if (c != '?' && c != ':')
        return c;
    /* the argument getopt stopped at: a long option, or a cluster of short ones */
    const char *arg = optind - 1 >= 1 && optind - 1 < argc ? argv[optind - 1] : "";
    if (optind == before && before < argc)
        arg = argv[before];
    fprintf(stderr, "millaudit %s: ", cmd);
    if (arg[0] == '-' && arg[1] == '-') {
        size_t len = option_word(arg);
        const struct option *o = named(longopts, arg + 2, len - 2);
        if (c == ':' && o) {
            fputs("option '--", stderr);
            put_word(stderr, o->name, strlen(o->name));
            fputs("' needs a value", stderr);
        } else if (o && o->has_arg == no_argument && arg[len] == '=') {
            fputs("option '--", stderr);
            put_word(stderr, o->name, strlen(o->name));
            fputs("' takes no value", stderr);
        } else {
            unknown_long(arg, len, longopts);
        }
    } else {
        char letter[2] = {(char)(optopt ? optopt : '?'), 0};
        fputs(c == ':' ? "option '-" : "unknown option '-", stderr);
        put_word(stderr, letter, 1);
        fputs(c == ':' ? "' needs a value" : "'", stderr);
    }
    fputc('\n', stderr);
    hint(cmd);
    return MA_OPT_ERROR;
}

int ma_opt_bytes(const char *s, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *s == '-')
        return -1;
    uint64_t mul = 1;
    if (*end == 'K' || *end == 'k')
        mul = 1024, end++;
    else if (*end == 'M' || *end == 'm')
        mul = 1024 * 1024, end++;
    else if (*end == 'G' || *end == 'g')
        mul = 1024 * 1024 * 1024, end++;
    if (*end || v == 0 || v > UINT64_MAX / mul)
        return -1;
    *out = v * mul;
    return 0;
}
