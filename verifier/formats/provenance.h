/*
 * What a file states about itself (docs/manifest.md "Provenance"), next to the readers that know
 * the formats: the open format's header (read, not validated: verifier/formats/open_file.h
 * ma_open_header_identify) and Malom's file names (<variant>_W_B_WF_BF.sec2 / .sec,
 * <variant>.secval). Manifests and the audit store record it per file; checksums/ only hashes.
 *
 * The ruleset string names everything that decides what the values in the file mean:
 *   open   "millaudit-ruleset-1|<variant>|<rule flags>|open-index-<scheme>.<version>|open-values-<encoding>"
 *   Malom  "millaudit-ruleset-1|<variant>|<1 for mora, else 0>|malom-index|<format>"
 * (its SHA-256 is the recorded ruleset fingerprint).
 */
#ifndef MA_FORMATS_PROVENANCE_H
#define MA_FORMATS_PROVENANCE_H

#include <stdint.h>

/* Empty strings mean "not stated". */
typedef struct ma_file_provenance {
    char variant[8];            /* "std", "lask", "mora" */
    char format[16];            /* "open", "malom-sec2", "malom-sec", "malom-secval" */
    char sector[40];            /* "std_3_3_0_0" */
    char producer[33];          /* open header producer name (printable ASCII, '?' for others) */
    char producer_version[17];  /* open header producer version */
    int has_entries;            /* entries is the header's entry count */
    uint64_t entries;
    char ruleset[128];          /* see above; "" when the file states nothing */
} ma_file_provenance;

/* Fills out from the file at path, named rel (its path relative to the database directory; only
 * the last component counts): for a "*.mdb" whose header ma_open_header_identify accepts, what the
 * header says; for "<v>_W_B_WF_BF.sec2|.sec" (canonical spelling: no leading zeros or extra text,
 * W and B at most 24, WF and BF at most 12) and "<v>.secval", what the name says. Never fails: an
 * unreadable or unrecognised file (a FIFO is never opened) states nothing. */
void ma_file_provenance_read(ma_file_provenance *out, const char *path, const char *rel);

#endif
