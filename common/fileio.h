/*
 * fileio: opening input files without ever blocking on them.
 *
 * A FIFO, a terminal or a device named like a database file must produce a one-line error, not a
 * hang: open(2) on a FIFO without O_NONBLOCK waits for a writer forever. ma_file_open_regular opens
 * with O_NONBLOCK (which never blocks, whatever the file is), then fstat's the descriptor it got and
 * refuses anything but a regular file, so the check and the use concern the same file (no race with
 * a rename between a stat and an open). Every reader of the checker opens its inputs through it.
 *
 * Nothing here knows about rules, indexes or formats.
 */
#ifndef MA_COMMON_FILEIO_H
#define MA_COMMON_FILEIO_H

#include <stdint.h>
#include <sys/stat.h>

#include "common/ma_error.h"

/* Opens path read-only (close-on-exec), refusing non-regular files. On success *fd is a blocking
 * descriptor of a regular file and *st (if non-NULL) its fstat. Errors, with a one-line message
 * "<path>: <what>" (control characters of the path escaped):
 *   MA_EMISSING  no such file, or a dangling symbolic link;
 *   MA_EFORMAT   not a regular file (FIFO, socket, device, directory) or a symbolic-link loop;
 *   MA_EIO       any other refusal (permissions, ...), with strerror text. */
int ma_file_open_regular(const char *path, int *fd, struct stat *st, ma_error *err);

/* What a mapped file's reader knows of the file it mapped, so that a write to it while it is mapped
 * can be seen afterwards though its bytes were put back (docs/runs.md, "The bytes hashed are the
 * bytes checked"): a MAP_PRIVATE mapping shows the page cache, so a file rewritten in place during a
 * check and rewritten back before it is hashed again would leave a digest of bytes the check never
 * read. Every write(2), truncate, rename over it, link change or mode change sets the file's change
 * time (ctime) to the kernel's clock, which no caller can set back (utimensat sets it too), and a
 * first write through a shared mapping does so at its first store to a clean page. The kernel's
 * clock is coarse (a tick) and a file system may keep ctime to 1 or 2 s: a write in the same
 * granule as the change before it leaves ctime as it was. So the stamp is taken only once the
 * file's ctime is more than MA_FILE_STAMP_SETTLE_NS older than a clock read before the fstat that
 * reads it: every later write then sets a ctime in a later granule, which differs.
 * Not seen: stores through a shared writable mapping another process made, and whose page it had
 * already dirtied, before the stamp (the kernel is not told of those); and a change by someone who
 * can set the system clock back. */
typedef struct ma_file_stamp {
    uint64_t dev, ino;
    int64_t size;
    int64_t ctime_sec, ctime_nsec;
    int taken;      /* 0: the file kept changing while it was stamped (or no stamp was asked) */
} ma_file_stamp;

#define MA_FILE_STAMP_SETTLE_NS 2100000000LL
/* How a format reader holds a file's bytes (its private_read argument): mapped, read once into
 * private memory (checksums/private_read.h), or mapped and stamped first (the waiting above is
 * only for a caller that compares the stamp afterwards: verify's snapshot). */
#define MA_HOLD_MAPPED 0
#define MA_HOLD_PRIVATE 1
#define MA_HOLD_MAPPED_STAMPED 2
#define MA_FILE_STAMP_TRIES 3

/* Stamps the regular file open at fd and refreshes *st (its fstat, the one the stamp is of). A file
 * changed less than MA_FILE_STAMP_SETTLE_NS before is waited for (sleeping until that much has
 * passed since its ctime, at most MA_FILE_STAMP_TRIES times): out->taken = 0 when it changed every
 * time. MA_OK, or MA_EIO "<name>: cannot stat: ..." (name as given, for the message). */
int ma_file_stamp_take(int fd, const char *name, struct stat *st, ma_file_stamp *out, ma_error *err);

/* Non-zero when the file now at path is not the one stamped, unchanged: why (if non-NULL) says how
 * ("removed", "replaced by another file", "its size changed", "written to (its change time
 * moved)", "being written when it was opened" for a stamp not taken). 0 when it still is. */
int ma_file_stamp_moved(const char *path, const ma_file_stamp *s, char *why, size_t n);

/* Opens a document the user names, which may be a stream: "-" is standard input (*fd =
 * STDIN_FILENO, not to be closed), and a FIFO or pipe (process substitution, `<(cat doc)`) or
 * terminal is accepted besides a regular file. The open never blocks (O_NONBLOCK; a FIFO nobody
 * writes to then reads as empty instead of hanging); the descriptor returned reads blocking.
 * Errors as ma_file_open_regular, MA_EFORMAT for a directory, socket or block device. */
int ma_file_open_stream(const char *path, int *fd, ma_error *err);

/* What kind of file st describes, for messages: "regular file", "directory", "FIFO", "socket",
 * "character device", "block device", "symbolic link". */
const char *ma_file_type_name(mode_t mode);

/* Copies text into buf (size len), escaping control characters and DEL as \n, \r, \t, \xNN and
 * backslash as \\, so a file name cannot break a one-line message or reach a terminal raw. Always
 * NUL-terminates; cuts at len - 1 bytes. Returns buf. */
char *ma_escape_name(const char *text, char *buf, size_t len);

/* Free text a file states about itself (an open header's producer and version) for display: each
 * byte of text that is not printable ASCII (0x20..0x7e) shown as '?'. Always NUL-terminates; cuts
 * at len - 1 bytes. Returns out. */
char *ma_printable_ascii(const char *text, char *out, size_t len);

/* Reads a document the user names into *out (malloc'd, NUL-terminated, *len bytes without the
 * NUL): "-" is standard input, a pipe or FIFO is read as a stream (one without a writer reads as
 * empty, never blocks: ma_file_open_stream). More than max bytes is MA_EFORMAT "<path>: offset N:
 * larger than max bytes, <what>"; other errors as ma_file_open_stream, MA_EIO for a failed read. */
int ma_file_read_document(const char *path, size_t max, const char *what, char **out, size_t *len,
                          ma_error *err);

/* The last component of path ("a/b/std_3_3_0_0.mdb" -> "std_3_3_0_0.mdb"), a pointer into path;
 * NULL for NULL. */
const char *ma_path_base(const char *path);

#endif
