/* What every test shares: sleeping and spinning, samples and their summary, JSON rows, threads. */
#include "probe.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

void sleep_until_ns(int64_t t) {
    struct timespec ts = {.tv_sec = t / 1000000000, .tv_nsec = t % 1000000000};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

void sleep_ns(int64_t ns) { sleep_until_ns(now_ns() + ns); }

void spin_cpu_ns(int64_t ns) {
    int64_t end = cpu_ns() + ns;
    while (cpu_ns() < end) {
    }
}

void spin_wall_ns(int64_t ns) {
    int64_t end = now_ns() + ns;
    while (now_ns() < end) {
    }
}

void samples_init(struct samples *s, size_t cap) {
    s->n = 0;
    s->cap = cap ? cap : 16;
    s->v = malloc(s->cap * sizeof *s->v);
    if (!s->v) {
        fprintf(stderr, "rtdroid-probe: out of memory for %zu samples\n", s->cap);
        exit(3);
    }
}

void samples_add(struct samples *s, int64_t v) {
    if (s->n == s->cap) {
        size_t cap = s->cap * 2;
        int64_t *nv = realloc(s->v, cap * sizeof *nv);
        if (!nv) {
            fprintf(stderr, "rtdroid-probe: out of memory for %zu samples\n", cap);
            exit(3);
        }
        s->v = nv;
        s->cap = cap;
    }
    s->v[s->n++] = v;
}

void samples_free(struct samples *s) {
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int64_t quantile_sorted(const int64_t *v, size_t n, double q) {
    if (n == 0) {
        return 0;
    }
    size_t rank = (size_t)ceil(q * (double)n); /* nearest rank: the smallest value with >= q below or at it */
    if (rank < 1) {
        rank = 1;
    }
    if (rank > n) {
        rank = n;
    }
    return v[rank - 1];
}

struct summary summarise(struct samples *s) {
    struct summary r = {0};
    r.n = s->n;
    if (s->n == 0) {
        return r;
    }
    qsort(s->v, s->n, sizeof *s->v, cmp_i64);
    double sum = 0, sq = 0;
    for (size_t i = 0; i < s->n; i++) {
        sum += (double)s->v[i];
    }
    r.mean = sum / (double)s->n;
    for (size_t i = 0; i < s->n; i++) {
        double d = (double)s->v[i] - r.mean;
        sq += d * d;
    }
    r.std = s->n > 1 ? sqrt(sq / (double)(s->n - 1)) : 0;
    r.min = s->v[0];
    r.max = s->v[s->n - 1];
    r.p50 = quantile_sorted(s->v, s->n, 0.50);
    r.p90 = quantile_sorted(s->v, s->n, 0.90);
    r.p99 = quantile_sorted(s->v, s->n, 0.99);
    r.p999 = quantile_sorted(s->v, s->n, 0.999);
    return r;
}

/* ---- JSON ---- */
void json_string(FILE *out, const char *s) {
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            fprintf(out, "\\%c", c);
        } else if (c < 0x20) {
            fprintf(out, "\\u%04x", c);
        } else {
            fputc(c, out);
        }
    }
    fputc('"', out);
}

static void key(struct row *r, const char *k) {
    if (!r->first) {
        fputc(',', r->out);
    }
    r->first = 0;
    json_string(r->out, k);
    fputc(':', r->out);
}

void row_begin(struct row *r, FILE *out, const char *test) {
    r->out = out;
    r->first = 1;
    fputc('{', out);
    row_str(r, "test", test);
}

void row_str(struct row *r, const char *k, const char *v) {
    key(r, k);
    json_string(r->out, v);
}

void row_int(struct row *r, const char *k, int64_t v) {
    key(r, k);
    fprintf(r->out, "%lld", (long long)v);
}

void row_num(struct row *r, const char *k, double v) {
    key(r, k);
    if (isfinite(v)) {
        fprintf(r->out, "%.6g", v);
    } else {
        fputs("null", r->out);
    }
}

void row_bool(struct row *r, const char *k, int v) {
    key(r, k);
    fputs(v ? "true" : "false", r->out);
}

void row_raw(struct row *r, const char *k, const char *json) {
    key(r, k);
    fputs(json, r->out);
}

void row_summary(struct row *r, const char *k, const struct summary *s) {
    key(r, k);
    fprintf(r->out,
            "{\"n\":%zu,\"min_ns\":%lld,\"mean_ns\":%.1f,\"std_ns\":%.1f,\"p50_ns\":%lld,\"p90_ns\":%lld,"
            "\"p99_ns\":%lld,\"p999_ns\":%lld,\"max_ns\":%lld}",
            s->n, (long long)s->min, s->mean, s->std, (long long)s->p50, (long long)s->p90, (long long)s->p99,
            (long long)s->p999, (long long)s->max);
}

void row_cdf(struct row *r, const char *k, const int64_t *sorted, size_t n, int points) {
    key(r, k);
    fputc('[', r->out);
    for (int i = 0; n > 0 && i <= points; i++) {
        double q = (double)i / points;
        fprintf(r->out, "%s[%lld,%.4g]", i ? "," : "", (long long)quantile_sorted(sorted, n, q), q);
    }
    fputc(']', r->out);
}

void row_ints(struct row *r, const char *k, const int64_t *v, size_t n) {
    key(r, k);
    fputc('[', r->out);
    for (size_t i = 0; i < n; i++) {
        fprintf(r->out, "%s%lld", i ? "," : "", (long long)v[i]);
    }
    fputc(']', r->out);
}

void row_end(struct row *r) {
    fputs("}\n", r->out);
    fflush(r->out);
}

/* ---- threads ---- */
const char *policy_name(const struct options *o) { return o->policy == POLICY_FIFO ? "SCHED_FIFO" : "SCHED_OTHER"; }

int apply_level(const struct options *o, int level) {
    if (o->policy == POLICY_FIFO) {
        struct sched_param p = {.sched_priority = o->prio - level};
        return pthread_setschedparam(pthread_self(), SCHED_FIFO, &p);
    }
    /* SCHED_OTHER: the levels are nice values, the top one at -level*... mapped so that a higher
     * level (lower priority) gets a larger nice value; nice below 0 needs CAP_SYS_NICE. */
    struct sched_param p = {.sched_priority = 0};
    int e = pthread_setschedparam(pthread_self(), SCHED_OTHER, &p);
    if (e) {
        return e;
    }
    int nice = -10 + 2 * level;
    if (nice > 19) {
        nice = 19;
    }
    if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice) != 0) {
        return errno;
    }
    return 0;
}

int pin_to(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

struct trampoline {
    const struct options *o;
    int level;
    void *(*fn)(void *);
    void *arg;
};

static void *start(void *p) {
    struct trampoline t = *(struct trampoline *)p;
    free(p);
    pin_to(t.o->cpu);
    apply_level(t.o, t.level);
    return t.fn(t.arg);
}

int start_thread(const struct options *o, int level, void *(*fn)(void *), void *arg, size_t stack_bytes,
                 void *thread_out) {
    struct trampoline *t = malloc(sizeof *t);
    if (!t) {
        return ENOMEM;
    }
    *t = (struct trampoline){o, level, fn, arg};
    pthread_attr_t a;
    pthread_attr_init(&a);
    if (stack_bytes) {
        /* Never below the platform's minimum (128 KiB on aarch64's glibc): a refused size would
         * leave the default, RLIMIT_STACK (8 MiB), which mlockall then commits for every thread;
         * 128 of them ran a 512 MiB arm64 cell out of memory. */
        long least = sysconf(_SC_THREAD_STACK_MIN);
        if (least > 0 && stack_bytes < (size_t)least) {
            stack_bytes = (size_t)least;
        }
        int e = pthread_attr_setstacksize(&a, stack_bytes);
        if (e) {
            pthread_attr_destroy(&a);
            free(t);
            return e;
        }
    }
    /* Set the policy before the thread runs: a thread created at a higher priority than its
     * creator must preempt it at once (the semaphore test relies on it). */
    if (o->policy == POLICY_FIFO && fifo_permitted(o)) {
        struct sched_param p = {.sched_priority = o->prio - level};
        pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
        pthread_attr_setschedpolicy(&a, SCHED_FIFO);
        pthread_attr_setschedparam(&a, &p);
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(o->cpu, &set);
        pthread_attr_setaffinity_np(&a, sizeof set, &set);
    }
    int e = pthread_create((pthread_t *)thread_out, &a, start, t);
    pthread_attr_destroy(&a);
    if (e) {
        free(t);
    }
    return e;
}

int fifo_permitted(const struct options *o) {
    static int known = -1;
    if (known < 0) {
        struct sched_param old;
        int pol;
        pthread_getschedparam(pthread_self(), &pol, &old);
        struct sched_param p = {.sched_priority = 1};
        known = pthread_setschedparam(pthread_self(), SCHED_FIFO, &p) == 0;
        pthread_setschedparam(pthread_self(), pol, &old);
    }
    (void)o;
    return known;
}

void progress(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("rtdroid-probe: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}
