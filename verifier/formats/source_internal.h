/*
 * verifier/formats/source_internal: what one format's source is made of, for the files that
 * implement one: source_open.c (the open format) and source_malom.c (Malom's .sec2 and .sec).
 *
 * A format is one ma_source_ops: its names, what a database of it reads besides the sector files,
 * the reader it feeds, and the operations on one opened sector's file and on its index scheme.
 * source.c holds the table of formats (ma_source_ops_of), decides a source's format once, when it
 * opens the file (ma_source.ops), and sends every ma_source_* call through those operations. A new
 * format is one new ma_source_ops and its line in that table; nothing that reads sources changes.
 *
 * Internal to verifier/formats/: callers see verifier/formats/source.h.
 */
#ifndef MA_FORMATS_SOURCE_INTERNAL_H
#define MA_FORMATS_SOURCE_INTERNAL_H

#include "verifier/formats/malom_secval.h"
#include "verifier/formats/source.h"

struct ma_source {
    const struct ma_source_ops *ops; /* the format's operations, set when the file is opened */
    ma_format format;
    ma_variant variant;
    ma_sector sector;
    const ma_db_sector *where;
    uint64_t entries;
    ma_open_file of;            /* open format */
    ma_malom_file *mf;          /* Malom formats */
    ma_malom_frame frame;
    const ma_open_index *oix;   /* always prepared for the sector's W (positions, orbits) */
    const ma_malom_index *mix;  /* Malom formats only */
    const char *private_sha256; /* the file read privately: the digest of its bytes; else NULL */
    const ma_file_stamp *stamp; /* the file mapped and stamped: its reader's stamp; else NULL */
};

/* What opening one sector's file may use besides its path: the database's open index (prepared
 * for the sector's W), whether an open-format body is checked against its header's digest, and
 * the file per variant the format reads the sector with (a .sec2's secval; NULL when the format
 * reads none, or it is absent or broken). */
typedef struct ma_source_open_args {
    ma_open_index *oix;
    int no_digest_check;
    const ma_malom_secval *secval;
    int secval_present; /* the variant's .secval is there (so a NULL secval is one unusable) */
    const char *secval_error; /* why it is unusable (its reader's message), else NULL */
    int private_read; /* read the file once into private memory, hashed as read, not mapped
                       * (ma_database_read_privately); the open sets ma_source.private_sha256 */
    const volatile sig_atomic_t *cancel; /* stops a private read between its pieces
                                          * (ma_database_options.cancel): MA_ECANCELED */
    int stamp;        /* a mapped file is stamped first (ma_database_options.stamp_mapped) */
} ma_source_open_args;

typedef struct ma_source_ops {
    ma_format format;
    const char *name;          /* ma_format_name: "open", "malom-sec2", "malom-sec" */
    const char *suffix;        /* ma_format_suffix: ".mdb", ".sec2", ".sec" */
    const char *variant_file;  /* the suffix of the file per variant every sector is read with
                                * ("<variant>.secval"), NULL for none */
    ma_source_reader reader;
    int open_numbered;         /* entries numbered by the open index scheme, else by Malom's
                                * (which ma_database_prepare then prepares too) */
    int open_in_advance;       /* its opens use no index, so several may run at once
                                * (ma_database_open_sources); the open reader prepares the index */
    int draw_classes;          /* ma_source_draw_classes */
    int full_board_draw_asked; /* ma_source_full_board_draw_asked */
    int bounds;                /* ma_format_has_bounds */
    int self_digest;           /* ma_format_self_digest */

    /* ma_format_planned_entries: the entries sector s's file at path holds, before it is opened. */
    uint64_t (*planned_entries)(ma_sector s, const char *path);

    /* Opens s->path into src (format, variant, sector, where, oix and mix are set; these set
     * entries and the reader's fields). On failure nothing is left to release. */
    int (*open)(ma_source *src, const ma_db_sector *s, const ma_source_open_args *a, ma_error *err);
    void (*close)(ma_source *src);
    /* The ma_source_* operation of the same name. read fills what ma_source_read leaves at zero
     * (and marker -1); split_unit may return 0 (read as 1). */
    const uint8_t *(*bytes)(const ma_source *src, size_t *size);
    uint64_t (*offset)(const ma_source *src, uint64_t entry);
    void (*read)(const ma_source *src, uint64_t entry, ma_stored *out);
    void (*read_range)(const ma_source *src, uint64_t first, uint64_t count, ma_stored *out);
    int (*canonical)(const ma_source *src, uint64_t entry);
    int (*canonical_range)(const ma_source *src, uint64_t first, uint64_t count, int orbits,
                           uint8_t *out);
    void (*describe)(const ma_source *src, const ma_stored *v, char *buf, size_t len);
    uint64_t (*split_unit)(const ma_source *src);
    int (*draw_frame)(const ma_source *src);

    /* The index scheme: entry <-> board of sector s (ma_scheme_board, ma_scheme_entry_of). */
    ma_board (*board)(const ma_open_index *oix, const ma_malom_index *mix, ma_sector s, uint64_t entry);
    uint64_t (*entry_of)(const ma_open_index *oix, const ma_malom_index *mix, ma_board b);
} ma_source_ops;

extern const ma_source_ops ma_source_open_ops;  /* source_open.c */
extern const ma_source_ops ma_source_sec2_ops;  /* source_malom.c */
extern const ma_source_ops ma_source_sec_ops;   /* source_malom.c */

/* The operations of format f; NULL for a value that is no format (0: a database of no format). */
const ma_source_ops *ma_source_ops_of(ma_format f);

#endif
