/* Unit tests for common/options: the one option-error path of every command. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/ma_error.h"
#include "common/options.h"

/* Runs f with stderr sent to a temporary file; returns what was written (malloc'd). */
static char *capture_stderr(int (*f)(void *), void *arg, int *ret)
{
    fflush(stderr);
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    int saved = dup(fileno(stderr));
    dup2(fileno(tmp), fileno(stderr));
    *ret = f(arg);
    fflush(stderr);
    dup2(saved, fileno(stderr));
    close(saved);
    long n = ftell(tmp);
    char *s = calloc(1, (size_t)n + 1);
    rewind(tmp);
    assert_int_equal(fread(s, 1, (size_t)n, tmp), (size_t)n);
    fclose(tmp);
    return s;
}

static const struct option opts[] = {{"threads", required_argument, NULL, 't'},
                                     {"quiet", no_argument, NULL, 'q'},
                                     {"sector", required_argument, NULL, 's'},
                                     {"help", no_argument, NULL, 'h'},
                                     {NULL, 0, NULL, 0}};

struct parse {
    int argc;
    char **argv;
    int seen[4];
};

/* Parses every option as a command would; returns MA_EUSAGE at the first error. */
static int parse_all(void *arg)
{
    struct parse *p = arg;
    int c;
    optind = 1;
    while ((c = ma_opt_next("verify", p->argc, p->argv, "h", opts)) != -1) {
        if (c == MA_OPT_ERROR)
            return MA_EUSAGE;
        p->seen[c == 't' ? 0 : c == 'q' ? 1 : c == 's' ? 2 : 3]++;
    }
    return 0;
}

static char *run(struct parse *p, int *ret, char **words, int n)
{
    memset(p, 0, sizeof *p);
    p->argc = n;
    p->argv = words;
    return capture_stderr(parse_all, p, ret);
}

static void test_errors_are_one_line_and_the_hint(void **state)
{
    (void)state;
    struct parse p;
    int ret;
    char *w1[] = {"verify", "db", "--threads", NULL};
    char *err = run(&p, &ret, w1, 3);
    assert_int_equal(ret, MA_EUSAGE);
    assert_string_equal(err, "millaudit verify: option '--threads' needs a value\ntry 'millaudit verify --help'\n");
    free(err);
    char *w2[] = {"verify", "--treads", "4", "db", NULL};
    err = run(&p, &ret, w2, 4);
    assert_string_equal(err, "millaudit verify: unknown option '--treads'; did you mean '--threads'?\n"
                             "try 'millaudit verify --help'\n");
    free(err);
    char *w3[] = {"verify", "--quiet=yes", NULL};
    err = run(&p, &ret, w3, 2);
    assert_string_equal(err, "millaudit verify: option '--quiet' takes no value\ntry 'millaudit verify --help'\n");
    free(err);
    char *w4[] = {"verify", "-x", NULL};
    err = run(&p, &ret, w4, 2);
    assert_string_equal(err, "millaudit verify: unknown option '-x'\ntry 'millaudit verify --help'\n");
    free(err);
    char *w5[] = {"verify", "--zzzzzz\x1b[2J", NULL}; /* a typo holding an escape is printed safely */
    err = run(&p, &ret, w5, 2);
    assert_null(strchr(err, '\x1b'));
    assert_non_null(strstr(err, "unknown option '--zzzzzz?[2J'\n"));
    free(err);
    /* a good command line: no output, every option seen, -h is help */
    char *w6[] = {"verify", "db", "--threads", "2", "--quiet", "--sector=3_3_0_0", "-h", NULL};
    err = run(&p, &ret, w6, 7);
    assert_int_equal(ret, 0);
    assert_string_equal(err, "");
    assert_int_equal(p.seen[0] + p.seen[1] + p.seen[2] + p.seen[3], 4);
    free(err);
}

struct num {
    const char *text;
    long out;
};

static int parse_threads(void *arg)
{
    struct num *n = arg;
    return ma_opt_long("solve", "--threads", n->text, 1, 256, &n->out);
}

static void test_numbers(void **state)
{
    (void)state;
    static const char *const bad[] = {"", "0", "257", "1x", " 1", "+1", "-1", "99999999999999999999"};
    int ret;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct num n = {bad[i], 7};
        char *err = capture_stderr(parse_threads, &n, &ret);
        assert_int_equal(ret, MA_EUSAGE);
        assert_int_equal(n.out, 7);
        assert_non_null(strstr(err, ": not a number in 1..256\ntry 'millaudit solve --help'\n"));
        free(err);
    }
    struct num n = {"256", 0};
    char *err = capture_stderr(parse_threads, &n, &ret);
    assert_int_equal(ret, 0);
    assert_int_equal(n.out, 256);
    assert_string_equal(err, "");
    free(err);
}

/* ma_opt_bytes: manifest create --chunk-size's byte counts, binary units, nothing else. */
static void test_byte_counts(void **state)
{
    (void)state;
    uint64_t v = 7;
    assert_int_equal(ma_opt_bytes("123", &v), 0);
    assert_int_equal(v, 123);
    assert_int_equal(ma_opt_bytes("64K", &v), 0);
    assert_int_equal(v, 65536);
    assert_int_equal(ma_opt_bytes("16m", &v), 0);
    assert_int_equal(v, 16u << 20);
    assert_int_equal(ma_opt_bytes("1G", &v), 0);
    assert_int_equal(v, 1u << 30);
    static const char *const bad[] = {"", "0", "-1", "1T", "K", "1KB", "18446744073709551615K", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        v = 7;
        assert_int_equal(ma_opt_bytes(bad[i], &v), -1);
        assert_int_equal(v, 7);
    }
}

static void test_suggestions(void **state)
{
    (void)state;
    static const char *const names[] = {"solve", "stats", "verify", "report", "runs", "index-check"};
    char buf[128];
    ma_opt_suggest(buf, sizeof buf, "verfy", names, 6, "");
    assert_string_equal(buf, "'verify'");
    ma_opt_suggest(buf, sizeof buf, "stat", names, 6, "");
    assert_string_equal(buf, "'stats'");
    ma_opt_suggest(buf, sizeof buf, "index", names, 6, ""); /* a prefix counts */
    assert_string_equal(buf, "'index-check'");
    ma_opt_suggest(buf, sizeof buf, "sxxxs", names, 6, "--");
    assert_string_equal(buf, "");
    ma_opt_suggest(buf, sizeof buf, "slats", names, 6, "--"); /* with the lead of options */
    assert_string_equal(buf, "'--stats'");
    ma_opt_suggest(buf, sizeof buf, "rns", names, 6, "");
    assert_string_equal(buf, "'runs'");
    assert_int_equal(ma_opt_edit_distance("treads", "threads"), 1);
    assert_int_equal(ma_opt_edit_distance("verfiy", "verify"), 1); /* a transposition */
    assert_int_equal(ma_opt_edit_distance("", "abc"), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errors_are_one_line_and_the_hint),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_suggestions),
        cmocka_unit_test(test_byte_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
