/*
 * output: the one way every command writes a file the user names (--junit, --out, --html, the OUT of
 * manifest merge and runs merge), so that no output ever destroys an input or a device.
 *
 * Two steps:
 *
 * 1. ma_output_check, before any work: the output path (for standard output: the file descriptor 1
 *    is open on) is compared with every input of the command
 *    (database files and directories, the audit store, manifests being read). It is refused with
 *    MA_EINVAL (exit 2, "OUT: the --junit output is the audit store A.sqlite") when it names an input,
 *    when it names the store's side files (<store>-wal, -shm, -journal: they may appear only while
 *    the command runs, so they are compared by name in the resolved directory, not by inode), or
 *    when it is the same file by device and inode (a hard link, a symbolic link, another spelling of
 *    the path). A store output (runs merge OUT) is also refused with MA_EIO (exit 4) when it cannot
 *    be written (below). A document output that cannot be written is found when it is written, so
 *    the work still reports on stdout as before (exit 4 then).
 *
 *    Cannot be written (MA_EIO): a directory, a missing or non-directory parent, a block device, a
 *    socket, a read-only regular file (its protection is honoured even for root, who could rename
 *    over it), a regular file in a directory that is not writable; for a store also a character
 *    device or FIFO.
 *
 * 2. ma_output_write writes the document:
 *    - "-" (where allowed) is standard output, and so are /dev/stdout, /dev/fd/1 and
 *      /proc/self/fd/1: written through descriptor 1, never renamed over;
 *    - an existing character device or FIFO is written through (opened O_WRONLY, never created,
 *      never renamed over): --junit /dev/null and /dev/stdout work and the device node stays;
 *    - a FIFO nobody reads is an error, not a hang (opened O_NONBLOCK);
 *    - anything else is a regular file written beside the target (<path>.tmp.<pid>), fsync'ed and
 *      renamed into place, then the directory fsync'ed: the target is the old file or the new one.
 *
 * Inputs are passed as an array of ma_output_input; a directory input also protects every regular
 * file directly inside it (a database directory's sector files).
 *
 * Nothing here knows about rules, indexes or formats.
 */
#ifndef MA_COMMON_OUTPUT_H
#define MA_COMMON_OUTPUT_H

#include <stddef.h>

#include "common/ma_error.h"

typedef enum ma_output_input_kind {
    MA_INPUT_FILE = 0,  /* a file read (a manifest, a database file or directory) */
    MA_INPUT_STORE = 1  /* a SQLite store: its -wal, -shm and -journal are protected too */
} ma_output_input_kind;

typedef struct ma_output_input {
    const char *path;   /* NULL entries are skipped, so optional inputs can be listed as they are */
    const char *role;   /* for the message: "the audit store", "a database", "the manifest" */
    ma_output_input_kind kind;
} ma_output_input;

/* Output kinds ma_output_check accepts. */
enum {
    MA_OUTPUT_DOCUMENT = 0, /* a text document: "-" means standard output, devices and FIFOs are
                               written through */
    MA_OUTPUT_STORE = 1     /* a SQLite store (runs merge OUT): only a regular file or a new path */
};

/* Checks out_path (named by option `role`, e.g. "--junit") against the inputs; see above.
 * Returns MA_OK, MA_EINVAL (an input), MA_EIO (not writable), MA_ENOMEM. */
int ma_output_check(const char *out_path, const char *role, int kind, const ma_output_input *inputs, size_t n,
                    ma_error *err);

/* Writes data (len bytes) to out_path as described above. Errors: MA_EIO naming out_path (never
 * the temporary file), MA_ENOMEM. */
int ma_output_write(const char *out_path, const void *data, size_t len, ma_error *err);

/* Flushes standard output and reads its error flag (a write that failed on the way, e.g. one line
 * of a long run, or now: a full disk, a closed descriptor): MA_OK, or MA_EIO with err "standard
 * output: write failed: <reason>". Every command ends with it (cli/main.c): exit 4 on a failure. */
int ma_output_stdout_check(ma_error *err);

/* True when out_path names standard output: "-", "/dev/stdout", "/dev/fd/1" or "/proc/self/fd/1"
 * (ma_output_check compares the file descriptor 1 is open on with the inputs; ma_output_write
 * writes through the descriptor). */
int ma_output_is_stdout(const char *out_path);

#endif
