/* verify_one: verify a database directory with libmillaudit and print the verdict.
 *
 *   cc verify_one.c $(pkg-config --cflags --libs millaudit) -o verify_one
 *   ./verify_one games/std      # exit status as `millaudit verify` would give it
 */
#include <stdio.h>

#include <millaudit.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    ma_error err = {0};
    /* zero is the default of every option: every online CPU, 1000 rows kept per sector */
    ma_vrun_options opt = {.root = argv[1], .max_rows = 10};
    ma_vrun *run = NULL;
    if (ma_vrun_create(&run, &opt, &err) != MA_OK || ma_vrun_execute(run, &err) != MA_OK) {
        fprintf(stderr, "verify_one: %s\n", err.msg);
        ma_vrun_free(run);
        return ma_exit_code_for(err.code);
    }
    const ma_vrun_totals *t = ma_vrun_totals_of(run);
    ma_verdict_state v = ma_vrun_verdict_of(run);
    printf("%s: %s (entries %llu, verified %llu, discrepancies %llu)\n", argv[1],
           ma_verdict_state_name(v), (unsigned long long)t->entries, (unsigned long long)t->verified,
           (unsigned long long)t->discrepancies);
    ma_vrun_free(run);
    return ma_verdict_exit_code(v, 0);
}
