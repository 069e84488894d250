#include "common/fanout.h"

#include <pthread.h>
#include <stdlib.h>

/* Parts past this run on the calling thread too: a step split this finely costs more to start. */
#define MAX_THREADS 256

typedef struct fanout_part {
    ma_fanout_fn fn;
    void *ctx;
    unsigned part, parts;
} fanout_part;

static void *run_part(void *arg)
{
    const fanout_part *p = arg;
    p->fn(p->ctx, p->part, p->parts);
    return NULL;
}

unsigned ma_fanout(unsigned parts, ma_fanout_fn fn, void *ctx)
{
    if (parts == 0)
        parts = 1;
    unsigned want = parts - 1 < MAX_THREADS ? parts - 1 : MAX_THREADS;
    pthread_t *tid = want ? malloc(want * sizeof *tid) : NULL;
    fanout_part *arg = want ? malloc(want * sizeof *arg) : NULL;
    unsigned started = 0;
    for (unsigned t = 1; t <= want && tid && arg; t++) {
        arg[started] = (fanout_part){fn, ctx, t, parts};
        if (pthread_create(&tid[started], NULL, run_part, &arg[started]) != 0)
            break;
        started++;
    }
    fn(ctx, 0, parts);
    /* the parts no thread took, in order */
    for (unsigned t = started + 1; t < parts; t++)
        fn(ctx, t, parts);
    for (unsigned t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    free(tid);
    free(arg);
    return started;
}
