/*
 * reports/render/report_integrity: a recorded run's damaged files (reports/store/audit_integrity.h)
 * in every format of `millaudit report`, right after the verdict and before anything else
 * (docs/report.md, docs/download.md): what the files were judged against and, per damaged file,
 * what is wrong with it and whether to fetch it again or remove it. Nothing for a run that recorded
 * no integrity phase, or one that found nothing and had no reference.
 */
#ifndef MA_RENDER_REPORT_INTEGRITY_H
#define MA_RENDER_REPORT_INTEGRITY_H

#include <jansson.h>

#include "reports/render/render_internal.h"

/* The block in text, Markdown or HTML (o->fmt). */
void ma_render_report_integrity(ma_out *o, const ma_report *r);

/* The "integrity" member of the report document: null when the run recorded none. */
json_t *ma_render_report_integrity_json(const ma_report *r);

#endif
