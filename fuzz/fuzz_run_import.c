/* libFuzzer harness for `runs import` (reports/store/runs.c ma_run_from_json and ma_run_import): the input
 * is parsed as a run export document. An accepted document must export again to a document that
 * parses to the same export (a fixed point), and import into a store as a new run that loads back;
 * a refused one gets a one-line MA_EFORMAT message naming the document. */
#include "fuzz/fuzz_common.h"

#include "reports/store/audit.h"
#include "reports/store/runs.h"

static ma_audit *store;
static unsigned imports;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ma_run r;
    ma_error err;
    ma_error_clear(&err);
    int rc = ma_run_from_json(&r, (const char *)data, size, "fuzz.json", &err);
    if (rc != MA_OK) {
        FUZZ_CHECK(rc == MA_EFORMAT);
        FUZZ_CHECK(strchr(err.msg, '\n') == NULL && strchr(err.msg, '\r') == NULL);
        FUZZ_CHECK(strncmp(err.msg, "fuzz.json", 9) == 0);
        ma_run_free(&r);
        return 0;
    }
    char *once = NULL, *twice = NULL;
    FUZZ_CHECK(ma_run_to_json(&r, &once, &err) == MA_OK);
    ma_run again;
    FUZZ_CHECK(ma_run_from_json(&again, once, strlen(once), "export", &err) == MA_OK);
    FUZZ_CHECK(ma_run_to_json(&again, &twice, &err) == MA_OK);
    FUZZ_CHECK(!strcmp(once, twice));
    ma_run_free(&again);
    free(twice);
    char path[300];
    const char *any = fuzz_write("unused", (const uint8_t *)"", 0);
    snprintf(path, sizeof path, "%.*s/store.sqlite", (int)(strrchr(any, '/') - any), any);
    if (store && ++imports % 256 == 0) {
        /* A fresh store now and then, so a long run does not grow one without bound. */
        ma_audit_close(store);
        store = NULL;
        unlink(path);
    }
    if (!store)
        FUZZ_CHECK(ma_audit_open(&store, path, &err) == MA_OK);
    int64_t id = 0;
    rc = ma_run_import(store, &r, "fuzz.json", &id, &err);
    /* A valid document may still break the schema's keys (a sector listed twice): refused whole. */
    FUZZ_CHECK(rc == MA_OK || rc == MA_EINVAL || rc == MA_EFORMAT);
    if (rc == MA_OK) {
        ma_run back;
        FUZZ_CHECK(ma_run_load(store, id, &back, &err) == MA_OK);
        FUZZ_CHECK(back.n_sectors == r.n_sectors && back.n_files == r.n_files && back.n_disc == r.n_disc);
        ma_run_free(&back);
    }
    free(once);
    ma_run_free(&r);
    return 0;
}
