/* fileio: non-blocking, type-checked opening of input files. */
#include "common/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/counts.h"

char *ma_escape_name(const char *text, char *buf, size_t len)
{
    return ma_escape_text(text, buf, len, 1);
}

char *ma_printable_ascii(const char *text, char *out, size_t len)
{
    size_t i = 0;
    for (; text[i] && i + 1 < len; i++)
        out[i] = ((unsigned char)text[i] >= 0x20 && (unsigned char)text[i] < 0x7f) ? text[i] : '?';
    out[i] = '\0';
    return out;
}

const char *ma_file_type_name(mode_t mode)
{
    if (S_ISREG(mode))
        return "regular file";
    if (S_ISDIR(mode))
        return "directory";
    if (S_ISFIFO(mode))
        return "FIFO";
    if (S_ISSOCK(mode))
        return "socket";
    if (S_ISCHR(mode))
        return "character device";
    if (S_ISBLK(mode))
        return "block device";
    if (S_ISLNK(mode))
        return "symbolic link";
    return "special file";
}

int ma_file_open_regular(const char *path, int *fd, struct stat *st, ma_error *err)
{
    char name[1024];
    ma_escape_name(path, name, sizeof name);
    *fd = -1;
    int f = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (f < 0) {
        int e = errno;
        if (e == ENOENT) {
            struct stat lst;
            if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
                return ma_error_set(err, MA_EMISSING, "%s: dangling symbolic link", name);
            return ma_error_set(err, MA_EMISSING, "%s: %s", name, strerror(e));
        }
        if (e == ELOOP)
            return ma_error_set(err, MA_EFORMAT, "%s: symbolic link loop", name);
        if (e == ENXIO) /* a socket, or a FIFO opened for writing without a reader */
            return ma_error_set(err, MA_EFORMAT, "%s: not a regular file", name);
        return ma_error_set(err, MA_EIO, "%s: cannot open: %s", name, strerror(e));
    }
    struct stat s;
    if (fstat(f, &s) != 0) {
        int e = errno;
        close(f);
        return ma_error_set(err, MA_EIO, "%s: cannot stat: %s", name, strerror(e));
    }
    if (!S_ISREG(s.st_mode)) {
        close(f);
        return ma_error_set(err, MA_EFORMAT, "%s: not a regular file (%s)", name,
                            ma_file_type_name(s.st_mode));
    }
    /* Regular files never block; clear the flag so later reads behave as usual. */
    int fl = fcntl(f, F_GETFL);
    if (fl >= 0)
        (void)fcntl(f, F_SETFL, fl & ~O_NONBLOCK);
    *fd = f;
    if (st)
        *st = s;
    return MA_OK;
}

static int64_t ns_of(int64_t sec, int64_t nsec) { return sec * 1000000000LL + nsec; }

int ma_file_stamp_take(int fd, const char *name, struct stat *st, ma_file_stamp *out, ma_error *err)
{
    memset(out, 0, sizeof *out);
    for (int tries = 0; tries < MA_FILE_STAMP_TRIES; tries++) {
        /* the clock first: a write after the fstat below sets a ctime no earlier than it */
        struct timespec now;
        clock_gettime(CLOCK_REALTIME_COARSE, &now);
        if (fstat(fd, st) != 0) {
            char shown[1024];
            int e = errno;
            return ma_error_set(err, MA_EIO, "%s: cannot stat: %s", ma_escape_name(name, shown, sizeof shown),
                                strerror(e));
        }
        int64_t c = ns_of((int64_t)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
        int64_t t = ns_of((int64_t)now.tv_sec, now.tv_nsec);
        /* older than the settle time, or (a clock ahead of ours, e.g. a file server's) later by
         * more: a write after the fstat gets a ctime of our clock's granule, never c */
        if (c + MA_FILE_STAMP_SETTLE_NS < t || c > t + MA_FILE_STAMP_SETTLE_NS) {
            out->dev = (uint64_t)st->st_dev;
            out->ino = (uint64_t)st->st_ino;
            out->size = (int64_t)st->st_size;
            out->ctime_sec = (int64_t)st->st_ctim.tv_sec;
            out->ctime_nsec = st->st_ctim.tv_nsec;
            out->taken = 1;
            return MA_OK;
        }
        int64_t wait = c + MA_FILE_STAMP_SETTLE_NS - t + 10000000LL; /* and a coarse tick */
        struct timespec d = {(time_t)(wait / 1000000000LL), (long)(wait % 1000000000LL)};
        while (nanosleep(&d, &d) != 0 && errno == EINTR) {
        }
    }
    return MA_OK; /* changed every time: not taken, so ma_file_stamp_moved says so */
}

int ma_file_stamp_moved(const char *path, const ma_file_stamp *s, char *why, size_t n)
{
    const char *what = NULL;
    struct stat st;
    if (!s->taken)
        what = "being written when it was opened";
    else if (stat(path, &st) != 0)
        what = "removed";
    else if ((uint64_t)st.st_dev != s->dev || (uint64_t)st.st_ino != s->ino)
        what = "replaced by another file";
    else if ((int64_t)st.st_size != s->size)
        what = "its size changed";
    else if ((int64_t)st.st_ctim.tv_sec != s->ctime_sec || st.st_ctim.tv_nsec != s->ctime_nsec)
        what = "written to (its change time moved)";
    if (what && why && n)
        snprintf(why, n, "%s", what);
    return what != NULL;
}

int ma_file_open_stream(const char *path, int *fd, ma_error *err)
{
    *fd = -1;
    if (!strcmp(path, "-")) {
        *fd = STDIN_FILENO;
        return MA_OK;
    }
    char name[1024];
    ma_escape_name(path, name, sizeof name);
    int f = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (f < 0) {
        int e = errno;
        if (e == ENOENT) {
            struct stat lst;
            if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
                return ma_error_set(err, MA_EMISSING, "%s: dangling symbolic link", name);
            return ma_error_set(err, MA_EMISSING, "%s: %s", name, strerror(e));
        }
        if (e == ELOOP)
            return ma_error_set(err, MA_EFORMAT, "%s: symbolic link loop", name);
        if (e == ENXIO)
            return ma_error_set(err, MA_EFORMAT, "%s: not a file or pipe (socket)", name);
        return ma_error_set(err, MA_EIO, "%s: cannot open: %s", name, strerror(e));
    }
    struct stat s;
    if (fstat(f, &s) != 0) {
        int e = errno;
        close(f);
        return ma_error_set(err, MA_EIO, "%s: cannot stat: %s", name, strerror(e));
    }
    if (!S_ISREG(s.st_mode) && !S_ISFIFO(s.st_mode) && !S_ISCHR(s.st_mode)) {
        close(f);
        return ma_error_set(err, MA_EFORMAT, "%s: not a file or pipe (%s)", name, ma_file_type_name(s.st_mode));
    }
    /* Read blocking from here on: a pipe with a writer delivers its data, one without reads as
     * end of file at once. */
    int fl = fcntl(f, F_GETFL);
    if (fl < 0 || fcntl(f, F_SETFL, fl & ~O_NONBLOCK) < 0) {
        int e = errno;
        close(f);
        return ma_error_set(err, MA_EIO, "%s: %s", name, strerror(e));
    }
    *fd = f;
    return MA_OK;
}

int ma_file_read_document(const char *path, size_t max, const char *what, char **out, size_t *len, ma_error *err)
{
    int fd;
    *out = NULL;
    *len = 0;
    int rc = ma_file_open_stream(path, &fd, err);
    if (rc)
        return rc;
    char shown[512];
    ma_escape_name(path, shown, sizeof shown);
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            if (cap >= max) {
                rc = ma_error_set(err, MA_EFORMAT, "%s: offset %zu: larger than %s, %s", shown, n, MA_COUNT(max, "byte", "bytes"), what);
                break;
            }
            cap = cap ? 2 * cap : 65536;
            if (cap > max)
                cap = max;
            char *p = realloc(buf, cap + 1);
            if (!p) {
                rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", shown);
                break;
            }
            buf = p;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = ma_error_set(err, MA_EIO, "%s: offset %zu: read failed: %s", shown, n, strerror(errno));
            break;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    if (fd != STDIN_FILENO)
        close(fd);
    if (rc) {
        free(buf);
        return rc;
    }
    if (!buf && !(buf = malloc(1))) /* an empty document is still a string */
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", shown);
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return MA_OK;
}

const char *ma_path_base(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path;
}
