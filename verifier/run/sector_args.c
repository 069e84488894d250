/* The sectors an engine is asked for (options' sectors) into picks (verifier/run/sector_args.h). */
#include "verifier/run/sector_args.h"

#include <string.h>

/* The one wording of a refused pick: "sector <what is wrong>", or "sectors: too many ..." as the
 * picks say it. */
static int pick_error(int rc, ma_error *err)
{
    if (!strncmp(err->msg, "sectors:", 8))
        return rc;
    ma_error why = *err; /* the message is rewritten from a copy, never from itself */
    return ma_error_set(err, rc, "sector %s", why.msg);
}

int ma_sector_arg_check(const char *text, size_t *n_picks, ma_error *err)
{
    ma_sector_pick scratch[MA_SECTOR_PICKS_MAX];
    int rc = ma_sector_picks_parse(text, scratch, MA_SECTOR_PICKS_MAX, n_picks, err);
    return rc ? pick_error(rc, err) : MA_OK;
}

int ma_sector_args_parse(ma_sector_pick *picks, size_t *n, const char *const *args, size_t n_args,
                         ma_error *err)
{
    *n = 0;
    for (size_t i = 0; i < n_args; i++) {
        int rc = ma_sector_picks_parse(args[i], picks, MA_SECTOR_PICKS_MAX, n, err);
        if (rc)
            return pick_error(rc, err);
    }
    return MA_OK;
}
