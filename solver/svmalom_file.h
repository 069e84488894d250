/*
 * svmalom_file: the producer's writer and reader of Malom's sector files, written from
 * ../shared/docs/malom-format.md §5 (the checker has its own readers).
 *
 *  - legacy `.sec` (§5.7): one byte per index, no header, then the overflow table;
 *  - `.sec2` (§5.1, §5.2): a 64-byte header, S bytes per index packing (key1, key2) with key1 in
 *    the low F1 bits, then the overflow table. STONE_DIFF builds (§5.6) use S = 2, F1 = 6 and the
 *    header flag; builds with a `<variant>.secval` use S = 3, F1 = 12 (std) or 14 (lask, mora).
 *
 * A file is assembled in memory (ma_svm_image), entry by entry in increasing index order (so the
 * overflow table comes out sorted), and written atomically: "<final>.tmp.<pid>" in the same
 * directory, fsync, rename, fsync of the directory. A large file is assembled in windows instead
 * (consecutive index ranges, filled by several threads at once) and streamed into its temporary
 * file by ma_svm_out, which appends the windows' overflow records in index order at the end. ma_svm_probe tells whether a file of the final
 * name is one this writer would have produced (exact header and length); anything else is MA_EEXIST
 * and never overwritten. ma_svm_reader reads back a `.sec2` this writer produced (the producer
 * needs its children's values to derive a sector's draw classes).
 *
 * Also here: the `.secval` file of §5.4 (sector values for non-STONE_DIFF `.sec2`), parsed from
 * the text.
 */
#ifndef MA_SVMALOM_FILE_H
#define MA_SVMALOM_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "solver/svrules.h"

enum { MA_SVM_SEC = 1, MA_SVM_SEC2 = 2 };

#define MA_SVM_SEC2_HEADER 64

/* What a file looks like: .sec, or .sec2 with its entry width and field split. */
typedef struct ma_svm_layout {
    int kind;         /* MA_SVM_SEC or MA_SVM_SEC2 */
    int entry_bytes;  /* 1 (.sec), 2 (STONE_DIFF) or 3 */
    int field1_bits;  /* .sec2: F1 (6, 12 or 14); 0 for .sec */
    int stone_diff;   /* .sec2 header flag */
} ma_svm_layout;

/* .sec, .sec2 STONE_DIFF, or .sec2 with sector values, for a variant (MA_SV_*). */
ma_svm_layout ma_svm_layout_for(int kind, int stone_diff, int variant);

/* "<dir>/<variant>_<W>_<B>_<WF>_<BF>.sec" or ".sec2"; MA_EINVAL if it does not fit. */
int ma_svm_path(char *buf, size_t n, const char *dir, int variant, ma_sv_sector s, int kind,
                ma_error *err);

/* ---- .sec byte encoding (§5.7) -------------------------------------------------------------- */
enum { MA_SVM_SEC_MAX_INLINE = 178, MA_SVM_SEC_OVERFLOW = 179, MA_SVM_SEC_MARKER0 = 180,
       MA_SVM_SEC_COUNT0 = 255, MA_SVM_SEC_MAX_COUNTER = 60 };

/* ---- a file being assembled ----------------------------------------------------------------- */
typedef struct ma_svm_image {
    ma_svm_layout layout;
    uint64_t first;        /* index of the first entry held (0 for a whole file) */
    uint64_t count;        /* entries held: hash_count for a whole file */
    size_t head;           /* bytes before the first entry: the .sec2 header of a whole file */
    uint8_t *bytes;        /* head + count * entry_bytes */
    size_t nbytes;
    int32_t *ovf;          /* pairs (index, value), ascending index */
    size_t novf, ovf_cap;
    uint64_t next;         /* entries must be put in increasing index order */
    char name[96];         /* for messages: "std_3_3_0_0.sec" */
} ma_svm_image;

/* A whole file of hash_count entries (with its header for .sec2). */
int ma_svm_image_init(ma_svm_image *img, ma_svm_layout layout, uint64_t count, const char *name,
                      ma_error *err);
/* A window: room for up to `capacity` entries, no header; ma_svm_image_reset places it. */
int ma_svm_image_window(ma_svm_image *img, ma_svm_layout layout, uint64_t capacity,
                        const char *name, ma_error *err);
/* The window now holds entries first .. first + count - 1, none put yet, no overflow records. */
void ma_svm_image_reset(ma_svm_image *img, uint64_t first, uint64_t count);
void ma_svm_image_free(ma_svm_image *img);

/* Index h holds a symmetry marker naming op (0..14). */
int ma_svm_put_marker(ma_svm_image *img, uint64_t h, int op, ma_error *err);
/* A win (odd plies) or loss (even plies) in a .sec file: Val x (§5.7). */
int ma_svm_put_sec_depth(ma_svm_image *img, uint64_t h, int plies, ma_error *err);
/* An unresolved draw ("Count") with a solver counter >= 0: .sec byte 255 - counter (overflow
 * above 60), .sec2 (0, counter). */
int ma_svm_put_count(ma_svm_image *img, uint64_t h, int counter, ma_error *err);
/* A .sec2 value (key1 != 0, key2) in the sector's relative frame (§5.5); key2 goes to the
 * overflow table when it does not fit inline (§5.2). */
int ma_svm_put_sec2(ma_svm_image *img, uint64_t h, int key1, int key2, ma_error *err);

/* Writes the image atomically to path. */
int ma_svm_image_write(const ma_svm_image *img, const char *path, ma_error *err);

/* A file streamed from windows: header first, windows in any order (each at its place), then
 * the overflow table, fsync, rename, fsync of the directory. Any failure, a cancellation or
 * ma_svm_out_abort removes the temporary file. */
typedef struct ma_svm_out {
    ma_svm_layout layout;
    uint64_t count;        /* hash_count */
    int fd;
    char path[4200], tmp[4224];
} ma_svm_out;

int ma_svm_out_open(ma_svm_out *o, const char *path, ma_svm_layout layout, uint64_t count,
                    ma_error *err);
/* Writes a filled window's entries at their place (thread-safe: positioned writes). */
int ma_svm_out_put(ma_svm_out *o, const ma_svm_image *win, ma_error *err);
/* Appends the overflow table (novf pairs (index, value), ascending) and commits the file. */
int ma_svm_out_close(ma_svm_out *o, const int32_t *ovf, size_t novf, ma_error *err);
void ma_svm_out_abort(ma_svm_out *o);

/* The header a .sec2 of this layout starts with. */
void ma_svm_sec2_header(uint8_t h[MA_SVM_SEC2_HEADER], ma_svm_layout layout);

/* *exists = 0 when path is absent, 1 when it is a file this writer could have written for the
 * layout and hash_count (header, and a length consistent with its overflow count); otherwise
 * MA_EEXIST ("exists but is incomplete or corrupt; remove it") naming the byte offset. */
int ma_svm_probe(int *exists, const char *path, ma_sv_sector s, ma_svm_layout layout,
                 uint64_t count, ma_error *err);

/* ---- reading back a .sec2 ------------------------------------------------------------------- */
typedef struct ma_svm_reader {
    ma_svm_layout layout;
    uint64_t count;
    uint8_t *data;         /* the whole file */
    size_t len;
    const uint8_t *body;   /* first entry */
    uint64_t novf;
    const uint8_t *ovf;    /* novf records of 8 bytes */
} ma_svm_reader;

/* Opens a .sec2 of this layout and hash_count; checks header, length and overflow order.
 * MA_EMISSING when absent, MA_EFORMAT naming the offset when malformed. */
int ma_svm_reader_open(ma_svm_reader *r, const char *path, ma_sv_sector s, ma_svm_layout layout,
                       uint64_t count, ma_error *err);
void ma_svm_reader_close(ma_svm_reader *r);
/* Entry h decoded to (key1, key2) with the overflow value substituted (§5.2).
 * MA_EFORMAT if key2 is SPEC and the table has no record for h. */
int ma_svm_reader_get(const ma_svm_reader *r, uint64_t h, int *key1, int *key2);

/* ---- .secval (§5.4) ------------------------------------------------------------------------- */
typedef struct ma_svm_secval {
    int virt_loss, virt_win;
    int n;
    ma_sv_sector *sectors;
    int *values;
} ma_svm_secval;

int ma_svm_secval_read(ma_svm_secval *sv, const char *path, ma_error *err);
void ma_svm_secval_free(ma_svm_secval *sv);
/* MA_EMISSING when the sector is not listed. */
int ma_svm_secval_get(const ma_svm_secval *sv, ma_sv_sector s, int *value, ma_error *err);

/* Writes bytes to path atomically (temporary name, fsync, rename, fsync of the directory). */
int ma_svm_write_atomic(const char *path, const void *a, size_t na, const void *b, size_t nb,
                        ma_error *err);

#endif
