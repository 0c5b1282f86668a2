/* Semaphore and mutex behaviour (seed 002, Fig. 5a/5b and 6a/6b), every thread on one CPU.
 *
 * Semaphore, contention case: a "creating" thread makes a semaphore of count zero and then K
 * threads, each of a higher priority than itself and than the one before. A new thread runs at
 * once, tries to take the semaphore and blocks, and the creator runs again: the acquisition time
 * is from the attempt to the creator running again (a thread switch included). The creator then
 * posts K times; each post wakes the highest-priority waiter, which preempts it: the release time
 * is from the post to the first instruction of the woken thread.
 *
 * Mutex: a low-priority holder L takes the mutex and wakes a high-priority waiter H, which wakes a
 * medium-priority CPU hog M and then blocks on the mutex. Without priority inheritance M runs its
 * whole hog before L can finish its critical section, so H waits for the hog; with it, L runs at
 * H's priority and H waits only for the rest of the critical section. */
#include "probe.h"

#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>

#define SEM_THREADS 10

struct sem_round {
    sem_t sem;
    int64_t attempt[SEM_THREADS], acquired[SEM_THREADS];
    int order[SEM_THREADS];
    int next_order;
};

struct sem_arg {
    struct sem_round *round;
    int index;
};

static void *sem_waiter(void *p) {
    struct sem_arg *a = p;
    struct sem_round *r = a->round;
    r->attempt[a->index] = now_ns();
    sem_wait(&r->sem);
    r->acquired[a->index] = now_ns();
    r->order[a->index] = __atomic_fetch_add(&r->next_order, 1, __ATOMIC_RELAXED);
    return NULL;
}

int test_sem(const struct options *o, FILE *out) {
    int rounds = o->quick ? 10 : 200;
    int k = SEM_THREADS;
    struct samples acq[SEM_THREADS], rel[SEM_THREADS], all_acq, all_rel;
    for (int i = 0; i < k; i++) {
        samples_init(&acq[i], (size_t)rounds);
        samples_init(&rel[i], (size_t)rounds);
    }
    samples_init(&all_acq, (size_t)(rounds * k));
    samples_init(&all_rel, (size_t)(rounds * k));
    long not_preempted = 0;
    /* the creator at the lowest level; thread i at level k - i: each higher than the one before */
    apply_level(o, k + 1);
    pin_to(o->cpu);
    for (int round = 0; round < rounds; round++) {
        struct sem_round r;
        memset(&r, 0, sizeof r);
        sem_init(&r.sem, 0, 0);
        struct sem_arg args[SEM_THREADS];
        pthread_t ts[SEM_THREADS];
        int64_t back[SEM_THREADS], post[SEM_THREADS];
        for (int i = 0; i < k; i++) {
            args[i] = (struct sem_arg){&r, i};
            r.attempt[i] = 0;
            if (start_thread(o, k - i, sem_waiter, &args[i], 64 * 1024, &ts[i]) != 0) {
                progress("sem: could not start a thread");
                return 1;
            }
            back[i] = now_ns();
        }
        for (int i = 0; i < k; i++) {
            post[i] = now_ns();
            sem_post(&r.sem);
        }
        for (int i = 0; i < k; i++) {
            pthread_join(ts[i], NULL);
        }
        for (int i = 0; i < k; i++) {
            if (r.attempt[i] == 0 || r.attempt[i] > back[i]) {
                not_preempted++; /* the new thread had not run when the creator went on */
            } else {
                samples_add(&acq[i], back[i] - r.attempt[i]);
                samples_add(&all_acq, back[i] - r.attempt[i]);
            }
            int64_t d = r.acquired[i] - post[r.order[i]];
            samples_add(&rel[i], d);
            samples_add(&all_rel, d);
        }
        sem_destroy(&r.sem);
        if (round % 10 == 9) {
            sleep_ns(2000000);
        }
    }
    struct row row;
    row_begin(&row, out, "sem");
    row_str(&row, "policy", policy_name(o));
    row_int(&row, "threads", k);
    row_int(&row, "rounds", rounds);
    row_int(&row, "not_preempted", not_preempted);
    struct summary sa = summarise(&all_acq), sr = summarise(&all_rel);
    row_summary(&row, "acquisition", &sa);
    row_summary(&row, "release", &sr);
    /* per thread, lowest priority first (Fig. 5a/5b: one bar per thread) */
    int64_t mean_acq[SEM_THREADS], max_acq[SEM_THREADS], mean_rel[SEM_THREADS], max_rel[SEM_THREADS];
    for (int i = 0; i < k; i++) {
        struct summary a = summarise(&acq[i]), b = summarise(&rel[i]);
        mean_acq[i] = (int64_t)a.mean;
        max_acq[i] = a.max;
        mean_rel[i] = (int64_t)b.mean;
        max_rel[i] = b.max;
        samples_free(&acq[i]);
        samples_free(&rel[i]);
    }
    row_ints(&row, "acquisition_mean_ns", mean_acq, (size_t)k);
    row_ints(&row, "acquisition_max_ns", max_acq, (size_t)k);
    row_ints(&row, "release_mean_ns", mean_rel, (size_t)k);
    row_ints(&row, "release_max_ns", max_rel, (size_t)k);
    row_end(&row);
    samples_free(&all_acq);
    samples_free(&all_rel);
    return 0;
}

/* ---- mutex ---- */

enum { EV_L_LOCK, EV_H_WAKE, EV_H_BLOCK, EV_M_START, EV_M_END, EV_L_UNLOCK, EV_H_ACQUIRE, EV_COUNT };
static const char *const EV_NAMES[EV_COUNT] = {"L locks", "H wakes", "H blocks", "M starts", "M ends",
                                               "L unlocks", "H acquires"};

struct mutex_run {
    pthread_mutex_t m;
    sem_t wake_h, wake_m, h_ready, m_ready;
    int64_t cs_ns, hog_ns;
    int iterations, stop;
    int64_t ev[EV_COUNT];
    struct samples blocking;
};

static void *mutex_h(void *p) {
    struct mutex_run *r = p;
    sem_post(&r->h_ready);
    for (;;) {
        sem_wait(&r->wake_h);
        if (r->stop) {
            return NULL;
        }
        r->ev[EV_H_WAKE] = now_ns();
        sem_post(&r->wake_m); /* M becomes runnable; below H it waits for H to block */
        int64_t t0 = now_ns();
        r->ev[EV_H_BLOCK] = t0;
        pthread_mutex_lock(&r->m);
        int64_t t1 = now_ns();
        r->ev[EV_H_ACQUIRE] = t1;
        pthread_mutex_unlock(&r->m);
        samples_add(&r->blocking, t1 - t0);
    }
}

static void *mutex_m(void *p) {
    struct mutex_run *r = p;
    sem_post(&r->m_ready);
    for (;;) {
        sem_wait(&r->wake_m);
        if (r->stop) {
            return NULL;
        }
        r->ev[EV_M_START] = now_ns();
        spin_wall_ns(r->hog_ns);
        r->ev[EV_M_END] = now_ns();
    }
}

struct mutex_result {
    struct summary blocking;
    int64_t ev[EV_COUNT];
};

static int mutex_one(const struct options *o, int inherit, int64_t cs, int64_t hog, int iterations,
                     struct mutex_result *out) {
    struct mutex_run r;
    memset(&r, 0, sizeof r);
    r.cs_ns = cs;
    r.hog_ns = hog;
    r.iterations = iterations;
    samples_init(&r.blocking, (size_t)iterations);
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setprotocol(&a, inherit ? PTHREAD_PRIO_INHERIT : PTHREAD_PRIO_NONE);
    pthread_mutex_init(&r.m, &a);
    pthread_mutexattr_destroy(&a);
    sem_init(&r.wake_h, 0, 0);
    sem_init(&r.wake_m, 0, 0);
    sem_init(&r.h_ready, 0, 0);
    sem_init(&r.m_ready, 0, 0);
    /* this thread is L, the lowest of the three */
    apply_level(o, 2);
    pin_to(o->cpu);
    pthread_t h, m;
    if (start_thread(o, 0, mutex_h, &r, 64 * 1024, &h) || start_thread(o, 1, mutex_m, &r, 64 * 1024, &m)) {
        progress("mutex: could not start its threads");
        return 1;
    }
    sem_wait(&r.h_ready);
    sem_wait(&r.m_ready);
    for (int i = 0; i < iterations; i++) {
        sleep_ns(2000000);
        pthread_mutex_lock(&r.m);
        r.ev[EV_L_LOCK] = now_ns();
        sem_post(&r.wake_h); /* H preempts here, wakes M and blocks on the mutex */
        spin_cpu_ns(cs);
        r.ev[EV_L_UNLOCK] = now_ns();
        pthread_mutex_unlock(&r.m); /* H preempts here */
    }
    r.stop = 1;
    sem_post(&r.wake_h);
    sem_post(&r.wake_m);
    pthread_join(h, NULL);
    pthread_join(m, NULL);
    out->blocking = summarise(&r.blocking);
    memcpy(out->ev, r.ev, sizeof r.ev);
    samples_free(&r.blocking);
    pthread_mutex_destroy(&r.m);
    sem_destroy(&r.wake_h);
    sem_destroy(&r.wake_m);
    sem_destroy(&r.h_ready);
    sem_destroy(&r.m_ready);
    return 0;
}

int test_mutex(const struct options *o, FILE *out) {
    int64_t cs = 200000, hog = 20 * cs;
    int iterations = o->quick ? 5 : 50;
    for (int inherit = 0; inherit <= 1; inherit++) {
        progress("mutex: %s priority inheritance", inherit ? "with" : "without");
        struct mutex_result res;
        if (mutex_one(o, inherit, cs, hog, iterations, &res)) {
            return 1;
        }
        struct row row;
        row_begin(&row, out, "mutex");
        row_bool(&row, "priority_inheritance", inherit);
        row_str(&row, "policy", policy_name(o));
        row_int(&row, "critical_section_ns", cs);
        row_int(&row, "hog_ns", hog);
        row_int(&row, "iterations", iterations);
        row_summary(&row, "blocking", &res.blocking);
        /* the last iteration's events, from L's lock (Fig. 6a/6b) */
        char buf[1024];
        size_t at = 0;
        at += (size_t)snprintf(buf + at, sizeof buf - at, "[");
        for (int e = 0; e < EV_COUNT; e++) {
            at += (size_t)snprintf(buf + at, sizeof buf - at, "%s[\"%s\",%lld]", e ? "," : "", EV_NAMES[e],
                                   (long long)(res.ev[e] - res.ev[EV_L_LOCK]));
        }
        snprintf(buf + at, sizeof buf - at, "]");
        row_raw(&row, "timeline_ns", buf);
        row_end(&row);
    }
    return 0;
}
