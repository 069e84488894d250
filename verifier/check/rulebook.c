/* One ma_vrules per sector, initialised lazily (see rulebook.h). */
#include "verifier/check/rulebook.h"

#include <stdlib.h>

/* Counts per side never exceed 12 (mora), so each of W, B, WF, BF fits in 0..12. */
#define DIM 13

struct ma_rulebook {
    ma_variant variant;
    ma_vrules *rules[DIM * DIM * DIM * DIM];
};

int ma_rulebook_create(ma_rulebook **out, ma_variant v, ma_error *err)
{
    *out = NULL;
    if (v != MA_VARIANT_STD && v != MA_VARIANT_LASK && v != MA_VARIANT_MORA)
        return ma_error_set(err, MA_EINVAL, "rulebook: unknown variant %d", (int)v);
    ma_rulebook *rb = calloc(1, sizeof *rb);
    if (!rb)
        return ma_error_set(err, MA_ENOMEM, "rulebook: out of memory");
    rb->variant = v;
    *out = rb;
    return MA_OK;
}

void ma_rulebook_free(ma_rulebook *rb)
{
    if (!rb)
        return;
    for (size_t i = 0; i < sizeof rb->rules / sizeof rb->rules[0]; i++)
        free(rb->rules[i]);
    free(rb);
}

ma_variant ma_rulebook_variant(const ma_rulebook *rb)
{
    return rb->variant;
}

const ma_vrules *ma_rulebook_get(ma_rulebook *rb, ma_sector s, ma_error *err)
{
    if (s.w >= DIM || s.b >= DIM || s.wf >= DIM || s.bf >= DIM || !ma_sector_valid(rb->variant, s)) {
        char name[16];
        ma_sector_format(s, name, sizeof name);
        ma_error_set(err, MA_EINVAL, "sector %s is not a sector of %s", name,
                     ma_variant_name(rb->variant));
        return NULL;
    }
    size_t i = ((size_t)s.w * DIM + s.b) * DIM * DIM + (size_t)s.wf * DIM + s.bf;
    if (!rb->rules[i]) {
        ma_vrules *r = malloc(sizeof *r);
        if (!r) {
            ma_error_set(err, MA_ENOMEM, "rulebook: out of memory");
            return NULL;
        }
        if (ma_vrules_init(r, rb->variant, s, err) != MA_OK) {
            free(r);
            return NULL;
        }
        rb->rules[i] = r;
    }
    return rb->rules[i];
}
