/*
 * The Malom branch of `millaudit stats DIR` (DIR holds *.sec2 / *.sec files and no *.mdb):
 * per sector the numbers of Malom's own statistics files (`.analyze`, `.analyze2`): maximal depth,
 * symmetric-entry (marker) count, win/draw/loss counts and the depth histogram (depth -1 = draw),
 * and for `.sec2` the distribution of A = key1 + v(S); beside them, as the open stats do, the same
 * counts per position (canonical entries weighted by the size of their symmetry class).
 */
#ifndef MA_CLI_STATS_MALOM_H
#define MA_CLI_STATS_MALOM_H

/* Non-zero when the DIR argument of a stats command line holds Malom files and no *.mdb. */
int ma_stats_malom_wanted(int argc, char **argv);
/* Runs the command (argv[0] = "stats"); returns the exit status. */
int ma_stats_malom(int argc, char **argv);

#endif
