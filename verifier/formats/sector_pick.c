/* Sector picks of a command line (verifier/formats/sector_pick.h). */
#include "verifier/formats/sector_pick.h"

#include <stdio.h>
#include <string.h>

#include "common/fileio.h"
#include "verifier/formats/source.h"

int ma_sector_picks_parse(const char *text, ma_sector_pick *picks, size_t max, size_t *n,
                          ma_error *err)
{
    const char *p = text;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[128];
        if (len >= sizeof item) {
            char shown[64];
            snprintf(item, 41, "%s", p);
            ma_escape_name(item, shown, sizeof shown);
            return ma_error_set(err, MA_EINVAL,
                                "'%s...': expected W_B_WF_BF or <variant>_W_B_WF_BF, e.g. 5_4_0_0 "
                                "or std_5_4_0_0",
                                shown);
        }
        memcpy(item, p, len);
        item[len] = 0;
        if (*n >= max)
            return ma_error_set(err, MA_EINVAL, "sectors: too many picked (at most %zu)", max);
        ma_sector_pick *k = &picks[*n];
        memset(k, 0, sizeof *k);
        int rc = ma_sector_arg_parse(item, &k->variant, &k->named_variant, &k->sector, err);
        if (rc)
            return rc;
        snprintf(k->text, sizeof k->text, "%.39s", item);
        (*n)++;
        if (!comma)
            return MA_OK;
        p = comma + 1;
    }
}

int ma_sector_picks_match(ma_sector_pick *picks, size_t n, ma_variant v, ma_sector s)
{
    int hit = n == 0;
    for (size_t i = 0; i < n; i++)
        if ((!picks[i].named_variant || picks[i].variant == v) && ma_sector_equal(picks[i].sector, s)) {
            picks[i].matched = 1;
            hit = 1;
        }
    return hit;
}

const ma_sector_pick *ma_sector_picks_unmatched(const ma_sector_pick *picks, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!picks[i].matched)
            return &picks[i];
    return NULL;
}
