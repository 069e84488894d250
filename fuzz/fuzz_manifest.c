/* libFuzzer harness for the manifest reader (checksums/manifest.c ma_manifest_read, the sha256sum
 * -c line grammar): the input is written as a manifest file and read. An accepted manifest holds
 * only safe, normalised relative paths, line numbers in order, and survives a round trip through
 * the writer (ma_manifest_write_stream) with the same paths and digests; a refused one gets a
 * one-line message naming the manifest and the line. */
#include "fuzz/fuzz_common.h"

#include "checksums/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write("MANIFEST.sha256", data, size);
    ma_manifest m;
    ma_error err;
    ma_error_clear(&err);
    int rc = ma_manifest_read(&m, path, &err);
    if (rc != MA_OK) {
        FUZZ_CHECK(rc == MA_EFORMAT);
        FUZZ_CHECK(strchr(err.msg, '\n') == NULL && strchr(err.msg, '\r') == NULL);
        FUZZ_CHECK(strncmp(err.msg, path, strlen(path)) == 0 && strstr(err.msg, ": line ") != NULL);
        FUZZ_CHECK(m.n == 0 && m.lines == NULL);
        return 0;
    }
    size_t n_lines = 0;
    for (size_t i = 0; i < size; i++)
        n_lines += data[i] == '\n';
    n_lines += size && data[size - 1] != '\n';
    FUZZ_CHECK(m.n + m.n_malformed <= n_lines);
    FUZZ_CHECK((m.n_malformed == 0) == (m.first_malformed == 0));
    for (size_t i = 0; i < m.n_malformed; i++) {
        FUZZ_CHECK(m.malformed[i] >= 1 && m.malformed[i] <= n_lines);
        FUZZ_CHECK(i == 0 ? m.malformed[i] == m.first_malformed : m.malformed[i] > m.malformed[i - 1]);
    }
    const char **paths = calloc(m.n ? m.n : 1, sizeof *paths);
    ma_file_digest *d = calloc(m.n ? m.n : 1, sizeof *d);
    FUZZ_CHECK(paths && d);
    for (size_t i = 0; i < m.n; i++) {
        const ma_manifest_line *ln = &m.lines[i];
        FUZZ_CHECK(ln->line >= 1 && ln->line <= n_lines && (i == 0 || ln->line > m.lines[i - 1].line));
        FUZZ_CHECK(ln->name[0] != '\0' && ma_manifest_path_check(ln->name, NULL) == MA_OK);
        FUZZ_CHECK(ma_manifest_path_check(ln->path, NULL) == MA_OK);
        char *again = ma_manifest_path_normalise(ln->path);
        FUZZ_CHECK(again && !strcmp(again, ln->path)); /* normalising is idempotent */
        free(again);
        FUZZ_CHECK(strncmp(ln->path, "./", 2) != 0 && !strstr(ln->path, "//") && !strstr(ln->path, "/./"));
        paths[i] = ln->path;
        memcpy(d[i].digest, ln->sha256, sizeof d[i].digest);
    }
    /* Round trip: what the writer makes of the lines reads back as the same lines. */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    FUZZ_CHECK(f != NULL);
    FUZZ_CHECK(ma_manifest_write_stream(f, "memory", paths, d, m.n, &err) == MA_OK);
    FUZZ_CHECK(fclose(f) == 0);
    ma_manifest back;
    FUZZ_CHECK(ma_manifest_parse(&back, buf, len, "memory", &err) == MA_OK);
    FUZZ_CHECK(back.n == m.n && back.n_malformed == 0);
    for (size_t i = 0; i < m.n; i++) {
        FUZZ_CHECK(!strcmp(back.lines[i].path, m.lines[i].path));
        FUZZ_CHECK(!memcmp(back.lines[i].sha256, m.lines[i].sha256, sizeof back.lines[i].sha256));
    }
    ma_manifest_free(&back);
    free(buf);
    free(paths);
    free(d);
    ma_manifest_free(&m);
    return 0;
}
