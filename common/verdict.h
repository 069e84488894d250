/*
 * The one verdict of the product and the command result: the public header millaudit/verdict.h
 * holds them (part of the API); this name stays for the modules that include it.
 */
#ifndef MA_COMMON_VERDICT_H
#define MA_COMMON_VERDICT_H

#include <stddef.h>

#include "millaudit/verdict.h"

/* Not part of the public API: the words of an interrupted run's progress, the same in verify's
 * verdict, report and runs list: "interrupted: K of N sectors checked", or, when some of the K were
 * carried over from an earlier run (--incremental, --resume), "interrupted: K of N sectors done
 * (C checked, R carried over)": a carried-over result was not checked by this run. Into buf (len
 * bytes). */
void ma_verdict_interrupted_words(char *buf, size_t len, long long reached, long long planned, long long carried);

/*
 * The words of the damaged verdict, the same in verify's text, JSON and JUnit and in every report
 * (docs/download.md): "damaged: 3 files differ from what was published; the other 25 sectors
 * verified; 2 sectors not checked (they read a damaged file)". `published` is 0 when no manifest
 * or attestation was the reference (the damage is an open file's body failing the digest its own
 * header records: "differ from what their producer wrote"). `others` counts the sectors neither
 * damaged nor reading a damaged file, `others_verified` those of them verified.
 */
typedef struct ma_damage_words {
    int published;
    unsigned long long files, others, others_verified, input_damaged;
} ma_damage_words;

void ma_damage_headline(char *buf, size_t len, const ma_damage_words *w);

/* The entries a run did not prove, the same words in verify and every report: "47 entries only
 * within bounds", "2 entries not verified", "47 entries only within bounds, 2 not verified", or ""
 * when both are 0. Within bounds: nothing contradicts, a successor sector is absent (Malom
 * excerpts); not verified: neither verified, within bounds nor a discrepancy. */
void ma_unproven_phrase(char *buf, size_t len, unsigned long long within_bounds, unsigned long long not_verified);

#endif
