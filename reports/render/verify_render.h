/*
 * reports/render/verify_render: the documents of the verify engines (include/millaudit/verify.h): the text
 * (reports/render/verify_text.c) and the JSON (reports/render/verify_json.c) of a verify run, of a shard plan and
 * of a merge. Output only: every count, status and verdict comes from the engines' results; the
 * caller (cli/cmd_verify.c, cli/cmd_runs.c) decides what to print and the exit status.
 *
 * The declarations are public (ma_render_verify_*, ma_render_shard_plan_*, ma_render_merge_text in
 * millaudit/verify.h); this header names the module.
 */
#ifndef MA_RENDER_VERIFY_RENDER_H
#define MA_RENDER_VERIFY_RENDER_H

#include "millaudit/verify.h"

/* The schema_version of the verify and plan documents (docs/json/verify.schema.json). */
#define MA_VERIFY_SCHEMA_VERSION 3 /* v2: scope; v3: integrity, damaged files */
#define MA_PLAN_SCHEMA_VERSION 1

#endif
