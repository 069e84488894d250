/*
 * reports/render/integrity_render: what a verify run's integrity phase found (millaudit/integrity.h),
 * in every document of the run, always before anything else it says (docs/download.md):
 *
 *   text    "integrity: <reference>: ..." and one line per damaged file, printed before the first
 *           sector (ma_render_integrity_text); after the verdict, what to do next: the files to
 *           fetch again, those to remove, and the command that checks only what was fetched again
 *           (ma_render_verify_next_text);
 *   JSON    the "integrity" and "next" members (docs/json/verify.schema.json);
 *   JUnit   one test case per damaged file, before the sectors' cases;
 *   a file  the list to fetch again, one path per line (verify --refetch-list FILE), ready for
 *           `rsync --files-from` or `xargs curl -O`.
 *
 * The verdict's words for a damaged run are common/verdict.h's ma_damage_headline, so verify's
 * outputs and every report say the same sentence.
 */
#ifndef MA_RENDER_INTEGRITY_RENDER_H
#define MA_RENDER_INTEGRITY_RENDER_H

#include <jansson.h>
#include <stdio.h>

#include "millaudit/verify.h"
#include "reports/render/junit.h"

/* The headline of a run's damage ("damaged: 3 files differ from what was published; the other 25
 * sectors verified") into buf. */
void ma_render_damage_headline(const ma_vrun *r, char *buf, size_t len);

/* The verdict line's suffix of a run with discrepancies: the damage found besides them, or without
 * a reference, when a file read carries no digest of its own (Malom's; an open file with a zero
 * digest field), what cannot be told apart ("; no manifest: damage in transit and a wrong solver
 * look alike; a wrong value here may be either"); "" otherwise (every file read matched its own
 * body digest: its values are its producer's). */
void ma_render_discrepancy_caveat(const ma_vrun *r, char *buf, size_t len);

/* After the verdict of a damaged run: "fetch again: ...", "remove: ...", "then: <command>". */
void ma_render_verify_next_text(FILE *out, const ma_vrun *r);

/* The command that checks only what was fetched again, as a shell line. */
void ma_render_verify_resume_command(const ma_vrun *r, char *buf, size_t len);

/* The JSON members "integrity" and "next" of a run; *bad set when a member could not be built (out
 * of memory: ma_json_put). */
json_t *ma_render_integrity_json(const ma_vrun *r, int *bad);
json_t *ma_render_next_json(const ma_vrun *r, int *bad);

/* The cases of the damaged files, into suite. Errors: MA_ENOMEM. */
int ma_render_integrity_junit(ma_junit_suite *suite, const ma_vrun *r, ma_error *err);

#endif
