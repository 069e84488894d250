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
