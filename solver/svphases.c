/* svphases: threads in lockstep phases behind a start gate. */
#include "solver/svphases.h"

#include <pthread.h>
#include <stdlib.h>

struct team {
    const ma_svphases_ops *ops;
    void *shared;
    char *workers;
    size_t worker_size;
    int started;
    pthread_mutex_t lock;
    pthread_cond_t gate;
    int gate_open;
    pthread_barrier_t barrier;
};

struct member {
    struct team *team;
    int id;
};

static void *member_main(void *arg)
{
    struct member *m = arg;
    struct team *t = m->team;
    /* Wait until every thread that could be started is: the barrier counts on all of them. */
    pthread_mutex_lock(&t->lock);
    while (!t->gate_open)
        pthread_cond_wait(&t->gate, &t->lock);
    pthread_mutex_unlock(&t->lock);
    void *worker = t->workers + (size_t)m->id * t->worker_size;
    while (!t->ops->done(t->shared)) {
        t->ops->work(worker);
        if (t->started > 1)
            pthread_barrier_wait(&t->barrier);
        if (m->id == 0)
            t->ops->next(t->shared);
        if (t->started > 1)
            pthread_barrier_wait(&t->barrier);
    }
    return NULL;
}

int ma_svphases_run(const ma_svphases_ops *ops, void *shared, void *workers, size_t worker_size,
                    int n)
{
    if (n < 1)
        n = 1;
    struct team t = {.ops = ops, .shared = shared, .workers = workers, .worker_size = worker_size,
                     .started = 1};
    struct member *ms = calloc((size_t)n, sizeof *ms);
    pthread_t *tids = calloc((size_t)n, sizeof *tids);
    if (!ms || !tids)
        n = 1; /* no room to start others: the caller alone does all the work */
    struct member self = {&t, 0};
    pthread_mutex_init(&t.lock, NULL);
    pthread_cond_init(&t.gate, NULL);
    pthread_mutex_lock(&t.lock);
    for (int i = 1; i < n; i++) {
        ms[i].team = &t;
        ms[i].id = i;
        if (pthread_create(&tids[i], NULL, member_main, &ms[i]) != 0)
            break; /* fewer threads give the same result, only later */
        t.started++;
    }
    if (t.started > 1)
        pthread_barrier_init(&t.barrier, NULL, (unsigned)t.started);
    if (ops->begin)
        ops->begin(shared, t.started);
    t.gate_open = 1;
    pthread_cond_broadcast(&t.gate);
    pthread_mutex_unlock(&t.lock);
    member_main(&self);
    for (int i = 1; i < t.started; i++)
        pthread_join(tids[i], NULL);
    if (t.started > 1)
        pthread_barrier_destroy(&t.barrier);
    pthread_cond_destroy(&t.gate);
    pthread_mutex_destroy(&t.lock);
    free(ms);
    free(tids);
    return t.started;
}
