/* The private memory of one sector's check; see memory.h for what is counted and why. */
#include "verifier/check/memory.h"

#include "verifier/check/resident.h"
#include "verifier/check/visited.h"
#include "verifier/check/walk.h"

static uint64_t pages(uint64_t bytes)
{
    return (bytes + MA_RESIDENT_PAGE - 1) / MA_RESIDENT_PAGE * MA_RESIDENT_PAGE;
}

/* One batch of ma_walk_copies over files of these sizes (0: none). */
static uint64_t batch(const uint64_t *file, int n)
{
    uint64_t total = 0, rounded = 0;
    for (int i = 0; i < n; i++) {
        total += file[i];
        rounded += file[i] ? pages(file[i]) : 0;
    }
    return ma_walk_within_budget(total, MA_WALK_RESIDENT_BUDGET) ? rounded : 0;
}

uint64_t ma_check_private_bytes(const ma_check_memory_in *in)
{
    uint64_t files[MA_TURN_KINDS + 1];
    int n = 0;
    for (int k = 0; k < MA_TURN_KINDS; k++)
        files[n++] = in->child_file[k];
    if (in->self_is_child)
        files[n++] = in->self_file;
    uint64_t copies;
    if (in->files_private) {
        copies = 0;
    } else if (in->format == MA_FORMAT_OPEN) {
        copies = batch(files, n);
        if (!in->self_is_child)
            copies += batch(&in->self_file, 1);
    } else {
        if (!in->self_is_child)
            files[n++] = in->self_file;
        copies = batch(files, n);
    }
    uint64_t bitmap = pages(ma_visited_words(in->entries) * sizeof(uint64_t));
    return copies + bitmap + MA_VISITED_OWN_BUDGET;
}
