/*
 * A tiny real database for the API tests of diff and the inspection engines: the whole std game
 * with 3 stones each (7 sector files, 540 KB), solved by `millaudit solve` (the producer, never
 * the checker) into a scratch directory, and a copy of it with one entry changed on disk.
 *
 * The binary is $MILLAUDIT_BIN, else the first of build/millaudit (run from the source tree),
 * ./millaudit and ../millaudit (run by ctest from the build tree or a test directory in it).
 */
#ifndef MA_TESTS_API_DB_H
#define MA_TESTS_API_DB_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct api_db {
    char dir[256];   /* scratch directory */
    char good[300];  /* dir/good: the solved database */
    char bad[300];   /* dir/bad: a copy whose files the tests change */
} api_db;

static inline int api_db_make(api_db *d)
{
    const char *bin = getenv("MILLAUDIT_BIN");
    static const char *const where[] = {"build/millaudit", "./millaudit", "../millaudit"};
    for (size_t i = 0; !bin && i < sizeof where / sizeof *where; i++)
        if (access(where[i], X_OK) == 0)
            bin = where[i];
    if (!bin)
        return -1;
    snprintf(d->dir, sizeof d->dir, "/tmp/ma-api-XXXXXX");
    if (!mkdtemp(d->dir))
        return -1;
    snprintf(d->good, sizeof d->good, "%s/good", d->dir);
    snprintf(d->bad, sizeof d->bad, "%s/bad", d->dir);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "'%s' solve --variant std --stones 3 --out '%s' --quiet >/dev/null && cp -r '%s' '%s'",
             bin, d->good, d->good, d->bad);
    return system(cmd) == 0 ? 0 : -1;
}

static inline void api_db_remove(api_db *d)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", d->dir);
}

/* Writes the 16-bit little-endian word at byte offset of path. */
static inline int api_db_poke(const char *path, unsigned long offset, unsigned word)
{
    FILE *f = fopen(path, "r+b");
    if (!f)
        return -1;
    unsigned char b[2] = {(unsigned char)(word & 0xFF), (unsigned char)(word >> 8)};
    int ok = fseek(f, (long)offset, SEEK_SET) == 0 && fwrite(b, 1, 2, f) == 2;
    return fclose(f) == 0 && ok ? 0 : -1;
}

#endif
