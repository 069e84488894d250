/* What a file states about itself (verifier/formats/provenance.h). */
#include "verifier/formats/provenance.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fileio.h"
#include "verifier/formats/malom_file.h"
#include "verifier/formats/open_file.h"
#include "indexer/position.h"

static void open_provenance(ma_file_provenance *out, const char *path)
{
    uint8_t h[MA_OPEN_HEADER_SIZE];
    int fd;
    if (ma_file_open_regular(path, &fd, NULL, NULL) != MA_OK)
        return;
    ssize_t got = pread(fd, h, sizeof h, 0);
    close(fd);
    ma_open_header hd;
    if (got != (ssize_t)sizeof h || ma_open_header_identify(h, &hd) != MA_OK)
        return;
    const char *v = ma_variant_name(hd.variant);
    snprintf(out->variant, sizeof out->variant, "%s", v);
    snprintf(out->format, sizeof out->format, "open");
    snprintf(out->sector, sizeof out->sector, "%s_%u_%u_%u_%u", v, hd.sector.w, hd.sector.b,
             hd.sector.wf, hd.sector.bf);
    ma_printable_ascii(hd.producer, out->producer, sizeof out->producer);
    ma_printable_ascii(hd.producer_version, out->producer_version, sizeof out->producer_version);
    out->has_entries = 1;
    out->entries = hd.entry_count;
    snprintf(out->ruleset, sizeof out->ruleset,
             "millaudit-ruleset-1|%s|%u|open-index-%u.%u|open-values-%u", v, hd.rule_flags,
             hd.index_scheme, hd.index_scheme_version, hd.value_encoding);
}

static int suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a > b && !strcmp(s + a - b, suf);
}

static void malom_provenance(ma_file_provenance *out, const char *base)
{
    const char *format;
    ma_variant v;
    char sector[40] = "";
    if (suffix(base, ".secval")) {
        char word[16];
        size_t n = strlen(base) - strlen(".secval");
        if (n >= sizeof word)
            return;
        memcpy(word, base, n);
        word[n] = 0;
        if (ma_variant_parse(word, &v, NULL) != MA_OK || strcmp(word, ma_variant_name(v)))
            return;
        format = "malom-secval";
    } else {
        ma_sector s;
        ma_malom_format f;
        if (ma_malom_file_name_parse(base, &v, &s, &f, NULL) != MA_OK || s.wf > 12 || s.bf > 12)
            return;
        format = f == MA_MALOM_SEC2 ? "malom-sec2" : "malom-sec";
        char again[80];
        snprintf(sector, sizeof sector, "%s_%u_%u_%u_%u", ma_variant_name(v), s.w, s.b, s.wf, s.bf);
        snprintf(again, sizeof again, "%s%s", sector, f == MA_MALOM_SEC2 ? ".sec2" : ".sec");
        if (strcmp(again, base)) /* leading zeros, signs: not the name of the sector */
            return;
    }
    snprintf(out->variant, sizeof out->variant, "%s", ma_variant_name(v));
    snprintf(out->format, sizeof out->format, "%s", format);
    snprintf(out->sector, sizeof out->sector, "%s", sector);
    /* Malom's rules: Morabaraba's full board is a draw (rule flag bit 0), as in the open header. */
    snprintf(out->ruleset, sizeof out->ruleset, "millaudit-ruleset-1|%s|%u|malom-index|%s",
             ma_variant_name(v), v == MA_VARIANT_MORA ? 1u : 0u, format);
}

void ma_file_provenance_read(ma_file_provenance *out, const char *path, const char *rel)
{
    memset(out, 0, sizeof *out);
    const char *base = strrchr(rel, '/');
    base = base ? base + 1 : rel;
    if (suffix(base, ".mdb"))
        open_provenance(out, path);
    else
        malom_provenance(out, base);
}
