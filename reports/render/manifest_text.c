/* The words of `millaudit manifest` (contract in include/millaudit/manifest.h): what check and
 * merge found, in sha256sum -c's words where it has them. */
#include <stdio.h>
#include <string.h>

#include "common/counts.h"
#include "millaudit/manifest.h"

#define PREFIX "millaudit manifest: "

void ma_manifest_print_name(FILE *out, const char *s)
{
    if (!strpbrk(s, "\\\n\r")) {
        fputs(s, out);
        return;
    }
    fputc('\\', out);
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\\\", out);
        else if (*s == '\n')
            fputs("\\n", out);
        else if (*s == '\r')
            fputs("\\r", out);
        else
            fputc(*s, out);
    }
}

void ma_manifest_check_print_malformed(FILE *err, const ma_manifest_check *c, ma_manifest_verbosity v)
{
    const ma_manifest_check_summary *s = ma_manifest_check_summary_of(c);
    if (v != MA_MANIFEST_PRINT_WARN)
        return;
    for (size_t i = 0; i < s->malformed; i++)
        fprintf(err, PREFIX "%s: line %zu: improperly formatted SHA-256 checksum line\n", s->manifest,
                s->malformed_lines[i]);
}

/* Where a FAILED file changed, after ": FAILED". */
static void print_pinned(FILE *out, const ma_manifest_file_result *f)
{
    if (f->chunk_size_differs) {
        fprintf(out, " (recorded chunk size %llu differs; not pinned)", (unsigned long long)f->recorded_chunk_size);
        return;
    }
    const char *sep = " at";
    for (size_t i = 0; i < f->n_ranges; i++) {
        const ma_manifest_byte_range *r = &f->ranges[i];
        if (r->first_chunk == r->last_chunk)
            fprintf(out, "%s bytes %llu-%llu (chunk %zu)", sep, (unsigned long long)r->first_byte,
                    (unsigned long long)r->last_byte, r->first_chunk);
        else
            fprintf(out, "%s bytes %llu-%llu (chunks %zu-%zu)", sep, (unsigned long long)r->first_byte,
                    (unsigned long long)r->last_byte, r->first_chunk, r->last_chunk);
        sep = ",";
    }
    if (f->more_ranges)
        fprintf(out, ", and %s more", MA_COUNT(f->more_ranges, "range", "ranges"));
    if (f->size != f->recorded_size)
        fprintf(out, " (size %llu, recorded %llu)", (unsigned long long)f->size,
                (unsigned long long)f->recorded_size);
}

void ma_manifest_check_print_files(FILE *out, FILE *err, const ma_manifest_check *c, ma_manifest_verbosity v)
{
    static const char *const word[] = {
        [MA_MANIFEST_FILE_OK] = ": OK", [MA_MANIFEST_FILE_FAILED] = ": FAILED",
        [MA_MANIFEST_FILE_UNREADABLE] = ": FAILED open or read", [MA_MANIFEST_FILE_MISSING] = ": MISSING",
        [MA_MANIFEST_FILE_EXTRA] = ": not in manifest"};
    for (size_t i = 0; i < ma_manifest_check_files(c); i++) {
        const ma_manifest_file_result *f = ma_manifest_check_file(c, i);
        if (v == MA_MANIFEST_PRINT_NOTHING)
            break;
        if (f->status == MA_MANIFEST_FILE_UNREADABLE)
            fprintf(err, PREFIX "%s\n", f->error);
        if (f->status == MA_MANIFEST_FILE_OK && v == MA_MANIFEST_PRINT_FAILURES)
            continue;
        ma_manifest_print_name(out, f->name);
        fputs(word[f->status], out);
        if (f->pinned)
            print_pinned(out, f);
        fputc('\n', out);
    }
    fflush(out);
}

void ma_manifest_check_print_summary(FILE *err, const ma_manifest_check *c, ma_manifest_verbosity v)
{
    const ma_manifest_check_summary *s = ma_manifest_check_summary_of(c);
    if (v == MA_MANIFEST_PRINT_NOTHING)
        return;
    if (s->malformed)
        fprintf(err, PREFIX "WARNING: %s %s improperly formatted (first: line %zu)\n", MA_NUM(s->malformed),
                ma_noun(s->malformed, "line is", "lines are"), s->malformed_lines[0]);
    if (s->missing)
        fprintf(err, PREFIX "WARNING: %s %s missing\n", MA_NUM(s->missing), ma_noun(s->missing, "listed file is", "listed files are"));
    if (s->unreadable)
        fprintf(err, PREFIX "WARNING: %s could not be read\n", MA_COUNT(s->unreadable, "listed file", "listed files"));
    if (s->failed)
        fprintf(err, PREFIX "WARNING: %s did NOT match\n", MA_COUNT(s->failed, "computed checksum", "computed checksums"));
    if (s->extra)
        fprintf(err, PREFIX "WARNING: %s in %s not in the manifest\n", MA_COUNT(s->extra, "file", "files"), s->dir);
    if (s->strict_refused)
        fprintf(err, PREFIX "%s: line %zu: improperly formatted SHA-256 checksum line (--strict)\n", s->manifest,
                s->malformed_lines[0]);
    else if (s->nothing_verified)
        fprintf(err, PREFIX "%s: no file was verified\n", s->manifest);
}

void ma_manifest_merge_print(FILE *info, FILE *err, const char *out_name, size_t n_inputs,
                             const char *audit_path, const ma_manifest_merged_info *m)
{
    fprintf(info, "%s: %s from %s", out_name, MA_COUNT(m->files, "file", "files"),
            MA_COUNT(n_inputs, "manifest", "manifests"));
    if (m->shard_count)
        fprintf(info, " (%s of %s)", MA_NUM((size_t)m->shard_count - m->n_missing),
                MA_COUNT(m->shard_count, "shard", "shards"));
    fputc('\n', info);
    for (size_t i = 0; i < m->n_missing; i++)
        fprintf(err, PREFIX "shard %u/%u missing (--allow-partial): its files are not listed\n", m->missing[i],
                m->shard_count);
    if (audit_path)
        fprintf(info, "%s: run %lld recorded\n", audit_path, (long long)m->run_id);
}
