/*
 * The Malom branch of `millaudit verify DIR`: used when DIR holds Malom sector files (*.sec2, *.sec)
 * and no open-format *.mdb files. Same options and exit codes as the open branch, plus
 *   --full-board-draw yes|no   §6 step 4 (default yes; matters only for mora 12_12_0_0)
 *   --allow-bounds             exit 0 when nothing contradicts although some entries could only be
 *                              checked within bounds (absent successor sectors)
 */
#ifndef MA_CLI_VERIFY_MALOM_H
#define MA_CLI_VERIFY_MALOM_H

/* Non-zero when the directory argument of a verify command line holds Malom files and no *.mdb. */
int ma_verify_malom_wanted(int argc, char **argv);
/* Runs the command (argv[0] = "verify"); returns the exit status. */
int ma_verify_malom(int argc, char **argv);

/* Shared with stats/probe: non-zero when DIR holds *.sec2 or *.sec files and no *.mdb. */
int ma_malom_dir_detect(const char *dir);

#endif
