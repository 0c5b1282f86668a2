/* Thread switch latency (seed 002): N threads on one CPU pass a token round a ring, each waiting
 * on its own semaphore and posting the next one's. The latency of a switch is the time from the
 * last instruction of thread n (t1, just before it posts) to the first instruction of thread n+1
 * (t0, just after its wait returns): the post, the block and the switch itself. */
#include "probe.h"

#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>

struct ring {
    int n;
    sem_t *sems;
    int64_t t1;          /* written and read only by the token's holder: the semaphores order it */
    long count, target, warmup, pause_every;
    int stop;
    struct samples lat;
};

struct member {
    struct ring *ring;
    int index;
};

static void *member(void *p) {
    struct member *m = p;
    struct ring *r = m->ring;
    sem_t *next = &r->sems[(m->index + 1) % r->n];
    for (;;) {
        sem_wait(&r->sems[m->index]);
        int64_t t0 = now_ns();
        if (r->stop) {
            sem_post(next);
            return NULL;
        }
        long c = ++r->count;
        if (c > r->warmup) {
            samples_add(&r->lat, t0 - r->t1);
        }
        if (c >= r->target) {
            r->stop = 1;
            sem_post(next);
            return NULL;
        }
        if (c % r->pause_every == 0) {
            sleep_ns(2000000); /* a breath for the cell's other work (its agent), outside any measurement */
        }
        r->t1 = now_ns();
        sem_post(next);
    }
}

static int one(const struct options *o, FILE *out, int n) {
    struct ring r = {.n = n};
    r.warmup = n; /* the first round touches every thread's stack for the first time */
    long switches = o->quick ? (n < 1000 ? 2000 : 3000) : (n < 1000 ? 20000 : 30000);
    r.target = r.warmup + switches;
    r.pause_every = 1000;
    samples_init(&r.lat, (size_t)switches + 1);
    r.sems = calloc((size_t)n, sizeof *r.sems);
    struct member *ms = calloc((size_t)n, sizeof *ms);
    pthread_t *ts = calloc((size_t)n, sizeof *ts);
    if (!r.sems || !ms || !ts) {
        progress("switch %d: out of memory", n);
        return 1;
    }
    int started = 0, err = 0;
    for (int i = 0; i < n; i++) {
        sem_init(&r.sems[i], 0, 0);
        ms[i] = (struct member){&r, i};
    }
    for (int i = 0; i < n && !err; i++) {
        err = start_thread(o, 1, member, &ms[i], 64 * 1024, &ts[i]);
        started += !err;
    }
    if (err) {
        /* unwind: let the started ones see the stop */
        r.stop = 1;
        sem_post(&r.sems[0]);
    } else {
        r.t1 = now_ns();
        sem_post(&r.sems[0]);
    }
    for (int i = 0; i < started; i++) {
        if (err && i > 0) {
            sem_post(&r.sems[i]);
        }
        pthread_join(ts[i], NULL);
    }
    struct row row;
    row_begin(&row, out, "switch");
    row_int(&row, "threads", n);
    row_str(&row, "policy", policy_name(o));
    if (err) {
        row_str(&row, "error", "could not start the threads");
        row_int(&row, "threads_started", started);
    } else {
        struct summary s = summarise(&r.lat);
        row_summary(&row, "latency", &s);
        row_cdf(&row, "cdf", r.lat.v, r.lat.n, 40);
    }
    row_end(&row);
    for (int i = 0; i < n; i++) {
        sem_destroy(&r.sems[i]);
    }
    samples_free(&r.lat);
    free(r.sems);
    free(ms);
    free(ts);
    return err != 0;
}

int test_switch(const struct options *o, FILE *out) {
    static const int counts[] = {2, 10, 128, 1000};
    int bad = 0;
    apply_level(o, 0); /* the creator stays above the ring while it builds it */
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
        progress("switch: %d threads", counts[i]);
        bad |= one(o, out, counts[i]);
    }
    return bad;
}
