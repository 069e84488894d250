/*
 * verifier/formats/source: the one way every command reads a database (verify, diff, probe, stats, opening,
 * grade, manifest provenance).
 *
 * A database is a directory of sector files of one format: the open format (`<v>_W_B_WF_BF.mdb`,
 * docs/format.md), Malom's ultra-strong `.sec2` (with `<v>.secval` beside it, or STONE_DIFF
 * builds) or Malom's legacy `.sec` (../shared/docs/malom-format.md). A single sector file may be
 * given instead of a directory; it is a database of one sector (a `.sec2` then finds its
 * `.secval` beside it).
 *
 * Discovery (ma_database_open) lists the directory once and sorts every name that looks like a
 * database file (suffix .mdb, .sec, .sec2, .secval) into usable sectors or unusable files, each
 * unusable one with a one-line reason; nothing that looks like a database file is ever silently
 * skipped. A file is unusable when:
 *   - it is not a regular file (FIFO, socket, device, directory), a dangling symbolic link or a
 *     symbolic-link loop (the type is checked with lstat/stat before anything is opened, so a FIFO
 *     never blocks);
 *   - its name does not parse as `<variant>_<W>_<B>_<WF>_<BF>.<ext>`, or parses but is not the
 *     canonical spelling of its sector (`std_03_3_0_0.mdb`: leading zeros, signs, spaces);
 *   - its sector is impossible for its variant;
 *   - its format is not the database's (the majority format of the directory; ties go to open,
 *     then .sec2, then .sec): a database has exactly one format.
 * Several variants may share a directory (Malom's downloads do); each is its own sector graph.
 * Names that do not look like database files (manifests, logs, `*.tmp.<pid>`, Malom's
 * `.analyze`) are ignored.
 *
 * Opening a sector (ma_database_source) maps its file (or reads it once into private memory,
 * hashed as read: ma_database_read_privately) and validates it completely (format readers'
 * contracts) and prepares the indexes it needs. An open-format file whose header records a body
 * digest (docs/format.md §5.1) is hashed when it is opened, and a body that does not match is
 * refused like any other malformed file (MA_EFORMAT, "offset 80: body digest mismatch"), so no
 * reader uses entries that are not what their producer wrote; ma_database_options.no_digest_check
 * turns this off for someone inspecting a damaged file (and for verify, which reports a mismatch
 * as a finding of its own, verifier/run/run_sector.h). The database caches one handle per sector, and
 * also the failure of one that could not be opened, so a file is validated and reported once
 * however many parents read it; ma_database_release unmaps a sector nobody needs any more.
 *
 * Errors are one line: "<path>: sector <v_W_B_WF_BF>: offset <byte>: <what>" where a file, sector
 * and offset apply, "<path>: <what>: <strerror>" for a directory that cannot be read. Control
 * characters of file names are escaped (\n, \x1b) so a message stays one line.
 *
 * Every format is one source (verifier/formats/source_internal.h: a table of the format's
 * operations; source_open.c, source_malom.c): a source's format is decided once, when its file is
 * opened, and every ma_source_* call goes through that format's operations. What a caller would
 * otherwise ask the format for (the name a sector file has, the file per variant a format reads
 * beside the sector files, the reader and so the checker a source feeds, the index scheme its
 * entries are numbered by, whether it keeps draw classes) it asks the database or the source, so
 * that no caller branches on the format and a new format is one new source.
 *
 * Threading: ma_database_open, ma_database_source, ma_database_open_sources and
 * ma_database_release are single-threaded (they prepare index tables; ma_database_open_sources runs
 * threads of its own inside). Every function taking a const ma_source may then be called from any
 * number of threads at once.
 */
#ifndef MA_FORMATS_SOURCE_H
#define MA_FORMATS_SOURCE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "checksums/sha256.h"
#include "common/ma_error.h"
#include "verifier/formats/malom_file.h"
#include "verifier/formats/open_file.h"
#include "verifier/formats/value.h"
#include "indexer/malom_index.h"
#include "indexer/open_index.h"
#include "indexer/position.h"


/* A sector the database holds (a usable file by name and type; its contents are validated only when
 * it is opened with ma_database_source). */
typedef struct ma_db_sector {
    ma_variant variant;
    ma_sector sector;
    char name[40];    /* "std_3_3_0_0" */
    char file[256];   /* file name inside the root directory */
    char path[4352];  /* root + "/" + file (or the file given) */
} ma_db_sector;

/* A file discovery could not use, and why. */
typedef struct ma_db_unusable {
    char path[4352];
    char message[1024]; /* one line, names the path (and the sector and offset where known) */
    int code;           /* MA_EFORMAT (name, type, sector) or MA_EIO */
} ma_db_unusable;

typedef struct ma_database ma_database;
typedef struct ma_source ma_source;

/* Options of discovery; zero-initialised means the defaults. */
typedef struct ma_database_options {
    ma_format format;     /* 0: take the directory's majority format; else only this format is
                           * the database and files of others are unusable */
    int no_digest_check;  /* non-zero: open-format bodies are not checked against the digest in
                           * their header when opened (--no-digest-check) */
    const volatile sig_atomic_t *cancel; /* a signal handler's flag: an open that reads its file
                           * privately (ma_database_read_privately) stops between two 2 MiB
                           * pieces once *cancel is non-zero and fails with MA_ECANCELED, which
                           * is not cached and not listed as unusable (the file is not blamed;
                           * a later open reads it again). NULL: never stopped */
    int stamp_mapped;     /* non-zero: a file opened mapped is stamped before its reader reads a
                           * byte (ma_file_stamp_take, common/fileio.h; a file changed less than
                           * 2.1 s before is waited for), so ma_source_moved can tell a write
                           * during its use. verify's runs set it; a command that compares no
                           * digest after reading (diff, probe, dump) need not wait */
} ma_database_options;

/* Non-zero when a file name (without directory) looks like a database file: its suffix is .mdb,
 * .sec2, .sec or .secval. Discovery lists every such name as a usable sector or an unusable file;
 * whoever checks that a directory holds nothing but attested files must treat them so too. */
int ma_database_file_like(const char *name);

/* Discovers the database at path (a directory or one sector file). opt may be NULL.
 * Errors: MA_EMISSING (no such path), MA_EIO (directory unreadable, with strerror), MA_EFORMAT (a
 * single file given whose name is not a sector file's; a directory holding no usable sector file
 * is NOT an error: it is a database of 0 sectors with its unusable files listed). */
int ma_database_open(ma_database **out, const char *path, const ma_database_options *opt,
                     ma_error *err);
/* Closes every cached source and frees the database. NULL is allowed. */
void ma_database_close(ma_database *db);

/* The path as given, without trailing slashes. */
const char *ma_database_root(const ma_database *db);
/* The directory the sector files live in (root itself, or the parent of a single file). */
const char *ma_database_dir(const ma_database *db);
/* The database's format; 0 when it holds no usable sector file. */
ma_format ma_database_format(const ma_database *db);
/* Bit (1 << variant) for each variant with at least one sector. */
unsigned ma_database_variants(const ma_database *db);

/* The usable sectors, sorted by variant, then sector name. */
size_t ma_database_count(const ma_database *db);
const ma_db_sector *ma_database_sector(const ma_database *db, size_t i);
/* The sector of variant v, or NULL when the database does not hold it. */
const ma_db_sector *ma_database_find(const ma_database *db, ma_variant v, ma_sector s);

/* Files discovery could not use (in name order), and files that failed when opened later. */
size_t ma_database_unusable_count(const ma_database *db);
const ma_db_unusable *ma_database_unusable(const ma_database *db, size_t i);

/* Files of the database a run of it reads besides sector files (the <variant>.secval of a .sec2
 * database that were loaded), as names inside ma_database_dir; for manifests of what was read. */
size_t ma_database_aux_count(const ma_database *db);
const char *ma_database_aux(const ma_database *db, size_t i);

/* Non-zero when discovery found a usable <variant>.secval of variant v in a .sec2 database (the
 * sector values its non-STONE_DIFF files are read with). */
int ma_database_has_secval(const ma_database *db, ma_variant v);

/* The name of sector s's file of variant v in this database's format ("std_3_3_0_0.sec2"; the open
 * format's name in a database of no format), whether or not the file is there; 40 bytes always
 * suffice. */
void ma_database_file_name(const ma_database *db, ma_variant v, ma_sector s, char *buf, size_t len);
/* The file every sector of variant v is read with besides the sector files, as a name inside
 * ma_database_dir: "<variant>.secval" in a .sec2 database. Returns 1 and writes the name when the
 * database's format reads one (whether or not it is there: ma_database_has_secval), else 0. */
int ma_database_variant_file(const ma_database *db, ma_variant v, char *buf, size_t len);

/* The digests (whole and per chunk) of the very bytes of <variant>.secval that every sector of v
 * is read with (docs/runs.md "The bytes hashed are the bytes checked"): the file is read into
 * memory once, when first needed or now, and parsed from those bytes; no sector of v ever reads
 * another version of it (a non-STONE_DIFF file of v fails when it is absent or unusable). *out
 * NULL and MA_OK when the database has no such file (or is not .sec2); the file's error when it
 * could not be read (it is also among the unusable files); a file read but not parsed gives the
 * digest of the bytes read. The digest stays valid until ma_database_close. */
int ma_database_secval_digest(ma_database *db, ma_variant v, const ma_file_digest **out, ma_error *err);

/* The indexes every source of this database is read through (created on first use, prepared for
 * the W of each opened sector). Checkers need them prepared for successor sectors too: see
 * ma_database_prepare. */
ma_open_index *ma_database_open_index(ma_database *db, ma_error *err);
ma_malom_index *ma_database_malom_index(ma_database *db, ma_error *err);
/* Prepares both indexes for w mover stones (single-threaded). */
int ma_database_prepare(ma_database *db, int w, ma_error *err);

/* The opened source of sector s of variant v, cached. MA_EMISSING when the database does not hold
 * the sector (message: "<dir>/<name><suffix>: sector <name>: offset 0: sector file absent");
 * the reader's error (MA_EFORMAT / MA_EIO / MA_EMISSING for a .sec2 without its .secval) when the
 * file cannot be used: then the file is also listed among the unusable ones, and the same error is
 * returned on every later call without touching the file again. MA_ENOMEM, and MA_ECANCELED (a
 * private read stopped, ma_database_options.cancel), are neither cached nor listed. */
int ma_database_source(ma_database *db, ma_variant v, ma_sector s, const ma_source **out,
                       ma_error *err);
/* Opens the sectors (v[k], s[k]) not yet opened as ma_database_source would, up to `threads` files
 * at once; afterwards ma_database_source of each returns the cached outcome, and reports a failure
 * (among the unusable files too) at that call, as if the file were opened then. An open reads its
 * whole file (a Malom file's overflow scan), time in which a check's other threads would wait.
 * Nothing is opened in advance for the open format, whose reader prepares the index itself, nor
 * when threads < 2 or fewer than two sectors need opening: ma_database_source opens those. A sector
 * the database does not hold, or an out-of-memory open, is left to ma_database_source. */
void ma_database_open_sources(ma_database *db, const ma_variant *v, const ma_sector *s, size_t n,
                              unsigned threads);
/* Unmaps (or frees, when read privately) the cached source of (v, s) if open; a later
 * ma_database_source opens it again. */
void ma_database_release(ma_database *db, ma_variant v, ma_sector s);
/* From the next open of (v, s) on (ma_database_source, ma_database_open_sources), until called
 * again with on = 0: the file is not mapped but read once into private memory (on 2 MiB pages
 * from one huge page up), hashed as it is read (stopped by ma_database_options.cancel), and
 * validated from those bytes (checksums/private_read.h), so ma_source_bytes cannot change
 * whatever happens to the file and ma_source_private_sha256 is their digest. A source open
 * already keeps how it was opened: release it first. verify's run engine alone asks for this
 * (verifier/run/run_unit.c); every other reader maps. */
void ma_database_read_privately(ma_database *db, ma_variant v, ma_sector s, int on);
/* Non-zero when the source of (v, s) is open and cached. */
int ma_database_is_open(const ma_database *db, ma_variant v, ma_sector s);

/* ---- one sector's source ---- */

ma_format ma_source_format(const ma_source *src);
ma_variant ma_source_variant(const ma_source *src);
ma_sector ma_source_sector(const ma_source *src);
const char *ma_source_name(const ma_source *src); /* "std_3_3_0_0" */
const char *ma_source_path(const ma_source *src);
/* Entries in the file (slots, canonical or not). */
uint64_t ma_source_entries(const ma_source *src);
/* Byte offset of an entry's bytes in the file, for messages. */
uint64_t ma_source_offset(const ma_source *src, uint64_t entry);

/* The stored entry, normalised (verifier/formats/value.h). Never fails for entry < entries. */
void ma_source_read(const ma_source *src, uint64_t entry, ma_stored *out);
/* ma_source_read of entries first .. first+count-1 into out[0..count), for walks over whole
 * sectors (stats, dump, diff): the same values, without a call per entry for the open format.
 * first + count <= entries. */
void ma_source_read_range(const ma_source *src, uint64_t first, uint64_t count, ma_stored *out);
/* Non-zero when the index scheme makes this entry canonical (a value-holding slot): by the index,
 * not by the stored bytes (open §4.3; Malom's marker rule §4.6). */
int ma_source_canonical(const ma_source *src, uint64_t entry);
/* The number of distinct positions a canonical entry stands for (its orbit under the 16
 * symmetries, 1..16); 0 for a non-canonical entry. */
int ma_source_orbit(const ma_source *src, uint64_t entry);
/* The canonical test (and orbit) of a range of entries at once: out[i] for entry first + i, i <
 * count, is 0 for a non-canonical entry, else the entry's orbit size (1..16) when `orbits` is
 * non-zero, else 1. The same answers as ma_source_canonical / ma_source_orbit, but the open format
 * classifies a whole representative at once (docs/format.md §4.3), many times faster than entry by
 * entry; with orbits == 0 a Malom source needs no board at all. first + count <= entries.
 * MA_OK, or MA_ENOMEM (scratch for a range that cuts a representative). */
int ma_source_canonical_range(const ma_source *src, uint64_t first, uint64_t count, int orbits,
                              uint8_t *out);
/* The board an entry decodes to (open numbering; may be non-canonical for a non-canonical entry). */
ma_board ma_source_board(const ma_source *src, uint64_t entry);
/* The canonical entry holding the value of board b (any symmetric image of the sector's boards);
 * b must have the sector's W mover and B opponent stones. */
uint64_t ma_source_entry_of(const ma_source *src, ma_board b);
/* The stored entry as a reader would name it: "win 13 (0xC00D)", "loss 4", "draw A=3 (val 1,-2)",
 * "marker op 5", "bad 0xC00C". */
void ma_source_describe(const ma_source *src, const ma_stored *v, char *buf, size_t len);

/* The whole file as the source reads it (header and body; *size bytes): the mapping, or the
 * private bytes (ma_database_read_privately), every entry is read from. SHA-256 of these bytes is
 * the digest of what was read, whatever happened to the file on disk since it was opened
 * (verifier/run/run.h: the bytes hashed are the bytes checked): in a mapping a file rewritten in
 * place since it was opened shows its new bytes, a renamed-over file keeps its old inode mapped;
 * private bytes never change. */
const uint8_t *ma_source_bytes(const ma_source *src, size_t *size);
/* The SHA-256 (hex) of the source's bytes when its file was read privately
 * (ma_database_read_privately), taken as they were read: the digest of exactly what every entry is
 * read from. NULL for a mapped file. */
const char *ma_source_private_sha256(const ma_source *src);
/* For a file mapped and stamped (ma_database_options.stamp_mapped): non-zero when the file at its
 * path is no longer the one mapped, unchanged
 * since before its reader read a byte of it (ma_file_stamp_moved, common/fileio.h: written to,
 * even if written back, replaced, removed), with why (if non-NULL) saying how. 0 for a file read
 * privately, whose bytes cannot change, and for one mapped without a stamp. A digest of the mapping taken after a check cannot see a
 * file rewritten during the check and back; this can. */
int ma_source_moved(const ma_source *src, char *why, size_t n);
/* Drops the resident pages of that mapping from the process (MADV_DONTNEED); nothing for a source
 * read privately (anonymous memory dropped would read back as zeros: release the source instead,
 * ma_database_release). The mapping is
 * read-only and private and never written, so its pages are the file's page-cache pages: a later
 * read faults them in again and sees exactly what it would have seen had they stayed (the file's
 * current bytes, a rewrite in place included). Only memory changes: a verify run drops a unit's
 * files once it has hashed them again, so they are not resident through the next unit (issue 47). */
void ma_source_drop_pages(const ma_source *src);

/* The reader a source reads its file through, and so the checker it feeds: the open format's
 * (ma_source_open_file; verifier/check/check.h) or Malom's, for .sec2 and .sec alike
 * (ma_source_malom_file; verifier/check/malom_check.h). */
typedef enum ma_source_reader {
    MA_READER_OPEN = 0,
    MA_READER_MALOM = 1
} ma_source_reader;
#define MA_READERS 2
ma_source_reader ma_source_reader_of(const ma_source *src);

/* The format readers' handles, for the checkers (NULL for the other reader). */
const ma_open_file *ma_source_open_file(const ma_source *src);
const ma_malom_file *ma_source_malom_file(const ma_source *src);

/* Non-zero when the format stores a draw class with every draw (.sec2: ma_stored.draw_class);
 * zero when it keeps none (open, .sec). */
int ma_source_draw_classes(const ma_source *src);
/* Non-zero when a source's values follow the full-board draw rule (verifier/check/rules.h) only
 * when the user asks for it (Malom's formats: its builds differ; verify --full-board-draw); zero
 * when the format states the variant's rule always (the open format, docs/format.md). */
int ma_source_full_board_draw_asked(const ma_source *src);
/* Non-zero when the source numbers its entries by the open index scheme (docs/index-scheme.md):
 * entry i of sector W_B is the open index's position i, so work in the open numbering reads its
 * entries directly; else (Malom's scheme) each position is looked up with ma_source_entry_of. */
int ma_source_open_numbered(const ma_source *src);

/* An index scheme without a file: how the sources of a format number a sector's entries, by the
 * checker's own indexes. For work on entry numbers alone, when no file is open (a merge
 * reclassifies shards' discrepancies with it, verifier/run/merge.h). oix must be prepared for the
 * W of every sector worked on (the open format), mix likewise (Malom's formats). */
typedef struct ma_scheme {
    ma_format format;
    const ma_open_index *oix;
    const ma_malom_index *mix;
} ma_scheme;
/* The scheme a source is read by (its database's indexes). */
ma_scheme ma_source_scheme(const ma_source *src);
/* ma_source_board and ma_source_entry_of of the scheme's format, for sector s. */
ma_board ma_scheme_board(const ma_scheme *sc, ma_sector s, uint64_t entry);
uint64_t ma_scheme_entry_of(const ma_scheme *sc, ma_board b);

/* The indexes of a format's numbering, owned: the one index the format numbers entries by, made
 * by ma_scheme_index_create, prepared per W (at most once each) by ma_scheme_index_prepare, read
 * through ma_scheme_of_index, released by ma_scheme_index_free (zeroed struct allowed). */
typedef struct ma_scheme_index {
    ma_format format;
    ma_open_index *oix;
    ma_malom_index *mix;
    uint32_t prepared; /* bit w: prepared for W = w */
} ma_scheme_index;
int ma_scheme_index_create(ma_scheme_index *out, ma_format f, ma_error *err);
int ma_scheme_index_prepare(ma_scheme_index *ix, int w, ma_error *err);
ma_scheme ma_scheme_of_index(const ma_scheme_index *ix);
void ma_scheme_index_free(ma_scheme_index *ix);

/* What a format is, without a file (a run planning shards, a merge reading shard stores):
 * ma_format_parse: the format named name (ma_format_name's words: "open", "malom-sec2",
 * "malom-sec"), MA_EINVAL for another name. ma_format_planned_entries: the entries sector s's file
 * at path holds before it is opened (open: from its size, 0 when it is unreadable or shorter than
 * its header; Malom's: the sector's hash count); 0 for format 0 means the open format.
 * ma_format_has_bounds: 1 when an entry whose successor is absent or broken is settled within
 * bounds (Malom's formats: the bound a present value gives), 0 when it is counted not verified
 * (the open format, which has no bounds). */
int ma_format_parse(const char *name, ma_format *out);
uint64_t ma_format_planned_entries(ma_format f, ma_sector s, const char *path);
int ma_format_has_bounds(ma_format f);
/* 1 when a sector file of format f records a digest of its own body (the open format's header,
 * docs/format.md 5.1), so damage shows without a manifest; 0 for Malom's files. */
int ma_format_self_digest(ma_format f);

/* What a comparison of two sources (verifier/run/diff.c) needs to know of their formats, so it need not
 * know the formats:
 *   ma_source_same_scheme: both number their entries by one index scheme (open's sym16-colex, or
 *     Malom's), so their canonical entries and slots correspond one to one;
 *   ma_source_draw_frame: the frame a draw's class (A = key1 + v(S)) is stated in, 0 when the
 *     format keeps no draw class (open, .sec); two sources compare draw classes when equal and
 *     non-zero (.sec2 against .sec2 with the same STONE_DIFF setting);
 *   ma_source_split_unit: the entries of one representative block (open: a representative's
 *     C(24 - W, B) entries; Malom: 4096), so work split on multiples of it classifies each
 *     representative once. */
int ma_source_same_scheme(const ma_source *a, const ma_source *b);
int ma_source_draw_frame(const ma_source *src);
uint64_t ma_source_split_unit(const ma_source *src);

/* ---- names ---- */

/* Parses a sector argument: "W_B_WF_BF", "<v>_W_B_WF_BF", either with a format suffix. When the
 * text names no variant, *v is left unchanged and *named_variant = 0. Errors: MA_EINVAL with a
 * message that shows the expected form and what was given ("--sector 5-4: expected W_B_WF_BF or
 * <variant>_W_B_WF_BF, e.g. 5_4_0_0"). Syntax only: validity for a variant is ma_sector_valid. */
int ma_sector_arg_parse(const char *text, ma_variant *v, int *named_variant, ma_sector *s,
                        ma_error *err);

#endif
