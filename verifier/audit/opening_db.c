/* The opening proof's oracle over a database read through verifier/formats/source.h (see opening.h). */
#include "verifier/audit/opening.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIM 13
#define SLOTS (DIM * DIM * DIM * DIM)

enum { S_UNRESOLVED = 0, S_OPEN = 1, S_ABSENT = 2 };

struct ma_opening_db {
    ma_database *db;
    ma_variant variant;
    int only_given;
    uint8_t only[SLOTS];
    uint8_t state[SLOTS];
    uint8_t missing[SLOTS];      /* a leaf was asked of this absent or excluded sector */
    const ma_source *src[SLOTS];
    const ma_db_sector *where[SLOTS];
    uint64_t bad_leaves;
    char first_bad[600];
    ma_sector opened[SLOTS > 256 ? 256 : SLOTS];
    size_t n_opened;
};

static size_t slot_of(ma_sector s)
{
    return (((size_t)s.w * DIM + s.b) * DIM + s.wf) * DIM + s.bf;
}

static int fits(ma_sector s)
{
    return s.w < DIM && s.b < DIM && s.wf < DIM && s.bf < DIM;
}

int ma_opening_db_create(ma_opening_db **out, ma_database *db, ma_variant v, const ma_sector *only,
                         size_t n_only, ma_error *err)
{
    *out = NULL;
    ma_opening_db *o = calloc(1, sizeof *o);
    if (!o)
        return ma_error_set(err, MA_ENOMEM, "opening: out of memory");
    o->db = db;
    o->variant = v;
    for (size_t i = 0; i < n_only; i++) {
        char name[16];
        ma_sector_format(only[i], name, sizeof name);
        if (!fits(only[i]) || !ma_sector_valid(v, only[i]) || only[i].wf || only[i].bf) {
            free(o);
            return ma_error_set(err, MA_EINVAL,
                                "only_sectors %s: not a movement sector (W_B_0_0) of %s", name,
                                ma_variant_name(v));
        }
        o->only[slot_of(only[i])] = 1;
        o->only_given = 1;
    }
    *out = o;
    return MA_OK;
}

void ma_opening_db_free(ma_opening_db *o)
{
    free(o);
}

/* The source of sector s, opened once: S_OPEN, S_ABSENT, or a negative code (file unusable). */
static int resolve(ma_opening_db *o, ma_sector s, int leaf, const ma_source **src, ma_error *err)
{
    if (!fits(s))
        return S_ABSENT;
    size_t i = slot_of(s);
    if (o->state[i] == S_UNRESOLVED) {
        const ma_db_sector *where = ma_database_find(o->db, o->variant, s);
        if (!where || (leaf && o->only_given && !o->only[i])) {
            o->state[i] = S_ABSENT;
        } else {
            int rc = ma_database_source(o->db, o->variant, s, &o->src[i], err);
            if (rc)
                return rc;
            o->where[i] = where;
            o->state[i] = S_OPEN;
            if (o->n_opened < sizeof o->opened / sizeof o->opened[0])
                o->opened[o->n_opened++] = s;
        }
    }
    if (o->state[i] == S_ABSENT) {
        if (leaf)
            o->missing[i] = 1;
        return S_ABSENT;
    }
    *src = o->src[i];
    return S_OPEN;
}

static int leaf_value(void *ctx, ma_sector s, ma_board b, ma_value *out, ma_error *err)
{
    ma_opening_db *o = ctx;
    const ma_source *src = NULL;
    int rc = resolve(o, s, 1, &src, err);
    if (rc < 0)
        return rc;
    if (rc == S_ABSENT)
        return MA_OPENING_UNKNOWN;
    uint64_t entry = ma_source_entry_of(src, b);
    ma_stored st;
    ma_source_read(src, entry, &st);
    if (st.kind == MA_STORED_VALUE) {
        *out = st.value;
        return MA_OPENING_KNOWN;
    }
    if (o->bad_leaves++ == 0) {
        char d[64];
        ma_source_describe(src, &st, d, sizeof d);
        snprintf(o->first_bad, sizeof o->first_bad,
                 "%.300s: sector %s: offset %llu: leaf entry %llu holds no value (%s)",
                 ma_source_path(src), ma_source_name(src),
                 (unsigned long long)ma_source_offset(src, entry), (unsigned long long)entry, d);
    }
    return MA_OPENING_UNKNOWN;
}

static int stored_value(void *ctx, ma_sector s, ma_board b, ma_opening_stored *out, ma_error *err)
{
    ma_opening_db *o = ctx;
    const ma_source *src = NULL;
    int rc = resolve(o, s, 0, &src, err);
    if (rc < 0)
        return rc;
    if (rc == S_ABSENT)
        return 0;
    uint64_t entry = ma_source_entry_of(src, b);
    ma_stored st;
    ma_source_read(src, entry, &st);
    out->usable = st.kind == MA_STORED_VALUE;
    out->value = st.value;
    out->entry = entry;
    out->entries = ma_source_entries(src);
    snprintf(out->sector, sizeof out->sector, "%s", ma_source_name(src));
    snprintf(out->path, sizeof out->path, "%s", ma_source_path(src));
    ma_source_describe(src, &st, out->describe, sizeof out->describe);
    return 1;
}

void ma_opening_db_oracle(ma_opening_db *o, int compare, ma_opening_oracle *out)
{
    out->ctx = o;
    out->leaf = leaf_value;
    out->stored = compare ? stored_value : NULL;
}

uint64_t ma_opening_db_bad_leaves(const ma_opening_db *o)
{
    return o->bad_leaves;
}

const char *ma_opening_db_first_bad(const ma_opening_db *o)
{
    return o->first_bad;
}

size_t ma_opening_db_missing(const ma_opening_db *o, char *buf, size_t len)
{
    size_t n = 0, used = 0;
    if (len)
        buf[0] = '\0';
    for (int w = 0; w < DIM; w++)
        for (int b = 0; b < DIM; b++) {
            ma_sector s = {(uint8_t)w, (uint8_t)b, 0, 0};
            if (!o->missing[slot_of(s)])
                continue;
            char name[16];
            ma_sector_format(s, name, sizeof name);
            if (used < len) {
                int k = snprintf(buf + used, len - used, "%s%s_%s", n ? ", " : "",
                                 ma_variant_name(o->variant), name);
                if (k > 0)
                    used += (size_t)k;
            }
            n++;
        }
    return n;
}

size_t ma_opening_db_files(const ma_opening_db *o, const char **names, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < o->n_opened && n < max; i++)
        names[n++] = o->where[slot_of(o->opened[i])]->file;
    for (size_t i = 0; i < ma_database_aux_count(o->db) && n < max; i++)
        names[n++] = ma_database_aux(o->db, i);
    return n;
}
