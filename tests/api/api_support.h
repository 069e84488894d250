/*
 * Support for the tests of the public API: a small solved database made by the real `millaudit
 * solve` (the producer is not part of the API, and a test of the checker must not trust the
 * checker to make its input), in a fresh temporary directory removed afterwards.
 */
#ifndef MA_API_SUPPORT_H
#define MA_API_SUPPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Runs a shell command line; returns its exit status (-1 if it could not run). */
static inline int ma_api_sh(const char *fmt, const char *a, const char *b)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, fmt, a, b ? b : "");
    int rc = system(cmd);
    return rc == -1 ? -1 : WEXITSTATUS(rc);
}

/* A temporary directory holding the solved whole std game with `stones` stones a side in
 * dir/db; returns 0 and fills dir (size >= 256) or -1. */
static inline int ma_api_solved_game(char *dir, int stones)
{
    const char *bin = getenv("MILLAUDIT_BIN");
    if (!bin)
        return -1;
    snprintf(dir, 256, "/tmp/ma-api-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' solve --variant std --stones %d --out '%s/db' --quiet >/dev/null", bin, stones,
             dir);
    return system(cmd) == 0 ? 0 : -1;
}

static inline void ma_api_remove(const char *dir)
{
    if (dir[0])
        ma_api_sh("rm -rf '%s'%s", dir, NULL);
}

#endif
