/*
 * millaudit dump FILE: options, then one engine call (ma_dump_run, include/millaudit/inspect.h)
 * whose header and entries the dump renderers print as they come.
 */
#include <getopt.h>
#include <stdio.h>

#include "millaudit.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "common/options.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: millaudit dump FILE [--with-entry] [--no-digest-check]\n"
            "\n"
            "Prints '<board> <outcome> <depth>' for every canonical entry of one sector file (open\n"
            ".mdb, Malom .sec2 or .sec), in entry order (board: mover's points '/' opponent's\n"
            "points, '-' for none; depth '-' for a draw). --with-entry prefixes each line with the\n"
            "entry number. An entry without a value prints as 'bad <raw>' and is reported on stderr.\n"
            "--no-digest-check reads an open-format file whose body fails its header's SHA-256\n"
            "(docs/format.md 5.1; refused by default, exit 3 naming offset 80).\n"
            "\n"
            "exit: 0 ok, 1 bad encodings found, 2 usage, 3 unusable file, 4 output not writable\n");
}

static int on_header(void *ctx, const ma_dump_summary *s)
{
    ma_dump_render_header(stdout, s, *(const int *)ctx);
    return MA_OK;
}

static int on_entry(void *ctx, const ma_dump_summary *s, const ma_dump_entry *e)
{
    ma_dump_render_entry(stdout, stderr, s, e, *(const int *)ctx);
    return MA_OK;
}

int ma_cmd_dump(int argc, char **argv)
{
    static const struct option opts[] = {
        {"with-entry", no_argument, NULL, 'e'},
        {"no-digest-check", no_argument, NULL, 'D'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int with_entry = 0, c, result = MA_OK, help = 0;
    ma_dump_options opt = {NULL, 0, on_header, on_entry, &with_entry};
    optind = 1;
    while (result == MA_OK && !help && (c = ma_opt_next("dump", argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 'e': with_entry = 1; break;
        case 'D': opt.no_digest_check = 1; break;
        case 'h': usage(stdout); help = 1; break;
        default: result = MA_EUSAGE; break; /* ma_opt_next said what is wrong */
        }
    }
    if (result == MA_OK && !help && argc - optind != 1) {
        ma_opt_error("dump", "need exactly one FILE");
        result = MA_EUSAGE;
    }
    if (result == MA_OK && !help) {
        opt.path = argv[optind];
        ma_dump_summary s;
        ma_error err;
        if ((result = ma_dump_run(&s, &opt, &err)) != MA_OK) {
            char words[sizeof err.msg + 64];
            fprintf(stderr, "millaudit dump: %s\n", ma_render_option_words(err.msg, words, sizeof words));
        } else {
            result = s.result;
            if (ma_cli_stdout_flush("dump") != MA_OK)
                result = MA_EIO;
            ma_dump_render_end(stderr, &s);
        }
    }
    return result; /* cli/main.c maps it to the exit status */
}
