/* output: refusing outputs that would destroy an input, and writing documents without renaming over
 * devices (common/output.h). */
#define _GNU_SOURCE
#include "common/output.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fileio.h"

/* How many directory levels below a database directory are searched for files an output must not replace. */
#define MAX_DIR_NESTING 8

int ma_output_is_stdout(const char *out_path)
{
    /* the names of standard output itself: written through descriptor 1, never renamed over (a
     * file renamed over /dev/stdout would replace the system's link, and the document would not
     * reach the file standard output is on) */
    static const char *const names[] = {"-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"};
    for (size_t i = 0; out_path && i < sizeof names / sizeof *names; i++)
        if (!strcmp(out_path, names[i]))
            return 1;
    return 0;
}

/* The directory part of path ("." when none), into buf. */
static void dir_of(const char *path, char *buf, size_t len)
{
    snprintf(buf, len, "%s", path);
    size_t n = strlen(buf);
    while (n > 1 && buf[n - 1] == '/')
        buf[--n] = 0;
    char *slash = strrchr(buf, '/');
    if (!slash)
        snprintf(buf, len, ".");
    else if (slash == buf)
        buf[1] = 0;
    else
        *slash = 0;
}

/* The absolute name path stands for, with its directory resolved (symbolic links, "..") but its
 * last component kept as written, so files that do not exist yet (a store's -wal) compare by name.
 * Returns 0 when the directory does not resolve. */
static int resolve_name(const char *path, char *out, size_t len)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", path);
    size_t n = strlen(tmp);
    while (n > 1 && tmp[n - 1] == '/')
        tmp[--n] = 0;
    const char *slash = strrchr(tmp, '/');
    const char *base = slash ? slash + 1 : tmp;
    if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
        return realpath(tmp, out) != NULL && strlen(out) < len;
    char dir[PATH_MAX], real[PATH_MAX];
    dir_of(tmp, dir, sizeof dir);
    if (!realpath(dir, real))
        return 0;
    int w = snprintf(out, len, "%s%s%s", real, strcmp(real, "/") ? "/" : "", base);
    return w > 0 && (size_t)w < len;
}

static int refuse_input(const char *out_path, const char *role, const char *what, const char *in_path,
                        ma_error *err)
{
    char o[PATH_MAX], i[PATH_MAX];
    ma_escape_name(out_path, o, sizeof o);
    ma_escape_name(in_path, i, sizeof i);
    return ma_error_set(err, MA_EINVAL, "%s: the %s output is %s %s (an input of this command); refusing to replace it",
                        o, role, what, i);
}

/* Searches directory dir (nesting levels below it) for a file with out's device and inode. */
static int dir_holds(const char *dir, const struct stat *out, int nesting, char *found, size_t len)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int hit = 0;
    struct dirent *e;
    while (!hit && (e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char p[PATH_MAX];
        if (snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= (int)sizeof p)
            continue;
        struct stat st;
        if (lstat(p, &st) != 0)
            continue;
        if (S_ISLNK(st.st_mode) && stat(p, &st) != 0)
            continue;
        if (st.st_dev == out->st_dev && st.st_ino == out->st_ino) {
            snprintf(found, len, "%s", p);
            hit = 1;
        } else if (S_ISDIR(st.st_mode) && nesting > 0 && e->d_type != DT_LNK) {
            hit = dir_holds(p, out, nesting - 1, found, len);
        }
    }
    closedir(d);
    return hit;
}

static const char *const store_suffixes[] = {"", "-wal", "-shm", "-journal"};

static int check_against(const char *out_path, const char *role, const char *out_name, int out_exists,
                         const struct stat *ost, const ma_output_input *in, ma_error *err)
{
    const char *what = in->role ? in->role : "an input";
    size_t ns = in->kind == MA_INPUT_STORE ? sizeof store_suffixes / sizeof *store_suffixes : 1;
    for (size_t s = 0; s < ns; s++) {
        char p[PATH_MAX];
        if (snprintf(p, sizeof p, "%s%s", in->path, store_suffixes[s]) >= (int)sizeof p)
            continue;
        char name[PATH_MAX];
        struct stat ist;
        int same = out_name && resolve_name(p, name, sizeof name) && !strcmp(name, out_name);
        if (!same && out_exists && stat(p, &ist) == 0)
            same = ist.st_dev == ost->st_dev && ist.st_ino == ost->st_ino;
        if (same) {
            if (s == 0)
                return refuse_input(out_path, role, what, p, err);
            char w[PATH_MAX + 64];
            snprintf(w, sizeof w, "the %s side file of %s", store_suffixes[s], what);
            return refuse_input(out_path, role, w, p, err);
        }
    }
    struct stat ist;
    if (out_exists && S_ISREG(ost->st_mode) && stat(in->path, &ist) == 0 && S_ISDIR(ist.st_mode)) {
        char found[PATH_MAX];
        if (dir_holds(in->path, ost, MAX_DIR_NESTING, found, sizeof found)) {
            char w[PATH_MAX + 64];
            snprintf(w, sizeof w, "a file of %s", what);
            return refuse_input(out_path, role, w, found, err);
        }
    }
    return MA_OK;
}

/* Whether out_path can be written as an output of kind (see the header): MA_OK or MA_EIO. */
static int writable(const char *out_path, const char *role, int kind, int exists, int stat_errno,
                    const struct stat *st, ma_error *err)
{
    char o[PATH_MAX];
    ma_escape_name(out_path, o, sizeof o);
    const struct stat ost = *st;
    char what[96] = "cannot write";
    if (role && *role)
        snprintf(what, sizeof what, "cannot write the %s output", role);
    if (!exists) {
        if (stat_errno != ENOENT && stat_errno != ENOTDIR)
            return ma_error_set(err, MA_EIO, "%s: %s: %s", o, what, strerror(stat_errno));
        char dir[PATH_MAX];
        dir_of(out_path, dir, sizeof dir);
        struct stat dst;
        if (stat(dir, &dst) != 0)
            return ma_error_set(err, MA_EIO, "%s: %s: its directory does not exist", o, what);
        if (!S_ISDIR(dst.st_mode))
            return ma_error_set(err, MA_EIO, "%s: %s: %s is not a directory", o, what,
                                ma_escape_name(dir, (char[PATH_MAX]){0}, PATH_MAX));
        if (access(dir, W_OK | X_OK) != 0)
            return ma_error_set(err, MA_EIO, "%s: %s: its directory is not writable (%s)", o,
                                what, strerror(errno));
        return MA_OK;
    }
    if (S_ISDIR(ost.st_mode))
        return ma_error_set(err, MA_EIO, "%s: %s: it is a directory", o, what);
    if (S_ISREG(ost.st_mode)) {
        /* Root may write anything and rename over anything; a file without write permission bits
         * is still someone's wish that it stays, so it is refused for everyone. */
        if (!(ost.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) || access(out_path, W_OK) != 0)
            return ma_error_set(err, MA_EIO, "%s: %s: the file is read-only", o, what);
        char dir[PATH_MAX];
        dir_of(out_path, dir, sizeof dir);
        if (access(dir, W_OK | X_OK) != 0)
            return ma_error_set(err, MA_EIO,
                                "%s: %s: its directory is not writable, so the file "
                                "cannot be replaced atomically (%s)",
                                o, what, strerror(errno));
        return MA_OK;
    }
    if (kind == MA_OUTPUT_DOCUMENT && (S_ISCHR(ost.st_mode) || S_ISFIFO(ost.st_mode)))
        return MA_OK;
    return ma_error_set(err, MA_EIO, "%s: %s: it is a %s", o, what,
                        ma_file_type_name(ost.st_mode));
}

int ma_output_check(const char *out_path, const char *role, int kind, const ma_output_input *inputs, size_t n,
                    ma_error *err)
{
    if (!out_path || !*out_path)
        return ma_error_set(err, MA_EINVAL, "the %s output is an empty path", role);
    if (ma_output_is_stdout(out_path)) {
        if (kind == MA_OUTPUT_STORE)
            return ma_error_set(err, MA_EINVAL, "%s: the %s output is a SQLite store and cannot be standard output",
                                out_path, role);
        /* standard output is a file like any other: opened on an input (`1<>FILE` does not
         * truncate it), writing the document there would destroy that input */
        struct stat sst;
        if (fstat(STDOUT_FILENO, &sst) != 0)
            return MA_OK; /* closed: the write fails later, exit 4 */
        for (size_t i = 0; i < n; i++) {
            if (!inputs[i].path)
                continue;
            char shown[64];
            snprintf(shown, sizeof shown, "%s (standard output)", out_path);
            int rc = check_against(shown, role, NULL, 1, &sst, &inputs[i], err);
            if (rc)
                return rc;
        }
        return MA_OK;
    }
    struct stat ost = {0};
    int exists = stat(out_path, &ost) == 0;
    int stat_errno = exists ? 0 : errno; /* before the calls below change errno */
    char out_name[PATH_MAX];
    int named = resolve_name(out_path, out_name, sizeof out_name);
    for (size_t i = 0; i < n; i++) {
        if (!inputs[i].path)
            continue;
        int rc = check_against(out_path, role, named ? out_name : NULL, exists, &ost, &inputs[i], err);
        if (rc)
            return rc;
    }
    if (kind == MA_OUTPUT_STORE)
        return writable(out_path, role, kind, exists, stat_errno, &ost, err);
    return MA_OK;
}

int ma_output_stdout_check(ma_error *err)
{
    errno = 0;
    int failed = fflush(stdout) != 0;
    int e = errno;
    failed |= ferror(stdout) != 0;
    if (!failed)
        return MA_OK;
    return ma_error_set(err, MA_EIO, "standard output: write failed: %s", e ? strerror(e) : "an earlier write failed");
}

static int write_all(int fd, const char *data, size_t len, const char *name, ma_error *err)
{
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return ma_error_set(err, MA_EIO, "%s: offset %zu: write failed: %s", name, done,
                                w < 0 ? strerror(errno) : "nothing written");
        done += (size_t)w;
    }
    return MA_OK;
}

/* A device or FIFO that exists: written through, never created, truncated or renamed over. */
static int write_through(const char *out_path, const char *name, const char *data, size_t len, ma_error *err)
{
    /* O_NONBLOCK: a FIFO nobody reads is an error (ENXIO), not a hang. */
    int fd = open(out_path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return ma_error_set(err, MA_EIO, "%s: cannot open for writing: %s", name,
                            errno == ENXIO ? "no process reads this FIFO" : strerror(errno));
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    int rc = write_all(fd, data, len, name, err);
    if (close(fd) != 0 && rc == MA_OK)
        rc = ma_error_set(err, MA_EIO, "%s: close failed: %s", name, strerror(errno));
    return rc;
}

static int write_atomic(const char *out_path, const char *name, const char *data, size_t len, ma_error *err)
{
    size_t pl = strlen(out_path);
    char *tmp = malloc(pl + 32);
    if (!tmp)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", name);
    /* <name>.tmp.<pid>: the form manifest listings skip and manifest create's sweep removes when
     * its process is dead; one left by a dead process of our pid is stale and replaced. */
    snprintf(tmp, pl + 32, "%s.tmp.%ld", out_path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST && unlink(tmp) == 0)
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return ma_error_set(err, MA_EIO, "%s: cannot create a temporary file beside it: %s", name, strerror(e));
    }
    int rc = MA_OK;
    /* created 0600 so no one reads it half-written; a document is meant to be read by others */
    mode_t um = umask(0);
    umask(um);
    if (fchmod(fd, 0666 & ~um) != 0)
        rc = ma_error_set(err, MA_EIO, "%s: cannot set permissions: %s", name, strerror(errno));
    if (rc == MA_OK)
        rc = write_all(fd, data, len, name, err);
    if (rc == MA_OK && fsync(fd) != 0)
        rc = ma_error_set(err, MA_EIO, "%s: fsync failed: %s", name, strerror(errno));
    if (close(fd) != 0 && rc == MA_OK)
        rc = ma_error_set(err, MA_EIO, "%s: close failed: %s", name, strerror(errno));
    if (rc == MA_OK && rename(tmp, out_path) != 0)
        rc = ma_error_set(err, MA_EIO, "%s: cannot move the new file into place: %s", name, strerror(errno));
    if (rc != MA_OK)
        unlink(tmp);
    free(tmp);
    if (rc == MA_OK) {
        /* make the rename itself durable */
        char dir[PATH_MAX];
        dir_of(out_path, dir, sizeof dir);
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            fsync(dfd);
            close(dfd);
        }
    }
    return rc;
}

int ma_output_write(const char *out_path, const void *data, size_t len, ma_error *err)
{
    char name[PATH_MAX];
    ma_escape_name(out_path, name, sizeof name);
    if (ma_output_is_stdout(out_path)) {
        fflush(stdout);
        return write_all(STDOUT_FILENO, data, len, "standard output", err);
    }
    struct stat st = {0};
    int exists = stat(out_path, &st) == 0;
    int rc = writable(out_path, "", MA_OUTPUT_DOCUMENT, exists, exists ? 0 : errno, &st, err);
    if (rc)
        return rc;
    if (exists && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)))
        return write_through(out_path, name, data, len, err);
    return write_atomic(out_path, name, data, len, err);
}
