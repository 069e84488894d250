/*
 * The millaudit subcommands. Each takes the arguments after its own name (argv[0] is the
 * subcommand name, as getopt expects), prints its own usage on --help, and returns its result
 * (common/verdict.h: MA_OK, an MA_E* code, ma_result_of_verdict or ma_result_of_signal); main()
 * alone maps it to the exit status (ma_result_exit_code) and exits.
 */
#ifndef MA_COMMANDS_H
#define MA_COMMANDS_H

/* the command line as typed (cli/cli_util.h); opaque here so the header stays side-neutral */
struct ma_cli_invocation;

int ma_cmd_solve(int argc, char **argv);       /* cli/cmd_solve.c: reference producer */
int ma_cmd_stats(int argc, char **argv);       /* cli/cmd_stats.c: per-sector statistics */
int ma_cmd_dump(int argc, char **argv);        /* cli/cmd_dump.c: one line per entry */
int ma_cmd_verify(int argc, char **argv);      /* cli/cmd_verify.c: independent checker */
int ma_cmd_index_check(int argc, char **argv); /* cli/cmd_index_check.c: prove the index scheme */
/* cli/cmd_manifest.c: SHA-256 manifests; typed is the command line as typed, for the audit run */
int ma_cmd_manifest(int argc, char **argv, const struct ma_cli_invocation *typed);
int ma_cmd_report(int argc, char **argv);      /* cli/cmd_report.c: render an audit run */
int ma_cmd_runs(int argc, char **argv);        /* cli/cmd_runs.c: export, import, compare runs */
int ma_cmd_probe(int argc, char **argv);       /* cli/cmd_probe.c: one position and its moves */
/* cli/cmd_diff.c: compare two databases by position; typed as for manifest (the audit run) */
int ma_cmd_diff(int argc, char **argv, const struct ma_cli_invocation *typed);
int ma_cmd_opening(int argc, char **argv);     /* cli/cmd_opening.c: Gasser's opening proof */
int ma_cmd_grade(int argc, char **argv);       /* cli/cmd_grade.c: grade a player against a database */
int ma_cmd_attest(int argc, char **argv);      /* cli/cmd_attest.c: signed verification attestations */

#endif
