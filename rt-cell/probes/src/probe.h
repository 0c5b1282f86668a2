/* rtdroid-probe: seed 002's platform characterisation (calibration, thread switch, interrupt
 * dispatch, sustained interrupt frequency, semaphore and mutex behaviour, platform hygiene) as
 * native code, so that it measures the OS and the CPU, not a VM. Every test writes one JSON row
 * per line on stdout; progress goes to stderr. */
#ifndef RTDROID_PROBE_H
#define RTDROID_PROBE_H
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

/* How the probe's threads are scheduled: what the cell gives its threads. */
enum policy { POLICY_FIFO, POLICY_OTHER };

#define IRQ_PERIODS_MAX 32

struct options {
    int cpu;              /* the one CPU every thread is pinned to; -1: the first CPU allowed */
    enum policy policy;   /* fifo: SCHED_FIFO at prio and the levels below it; other: nice levels */
    int prio;             /* the highest priority a test uses (fifo 2..99) */
    int quick;            /* the short series */
    const char *rtc;      /* a periodic-interrupt device (an RTC), or NULL */
    /* irqrate's long form (the seed's 10,000,000-interrupt table): interrupts per period and the
     * periods; 0: the series of --quick or the full run */
    long irq_count;
    int64_t irq_periods_ns[IRQ_PERIODS_MAX];
    int irq_periods;
    /* hygiene: what to set (NULL / INT_MIN: leave as it is) */
    const char *set_governor;
    long set_rt_runtime_us;
    int set_oom_adj;
    int oom_pid;          /* the process whose OOM score is reported and set (0: the parent) */
};

/* ---- time ---- */
static inline int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}
static inline int64_t cpu_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}
void sleep_until_ns(int64_t t);
void sleep_ns(int64_t ns);
/* spins until the calling thread has used `ns` of CPU time (a critical section that preemption
 * stretches, as a real one would be) */
void spin_cpu_ns(int64_t ns);
/* spins until `ns` of wall time have passed (a hog) */
void spin_wall_ns(int64_t ns);

/* ---- samples and their summary ---- */
struct samples {
    int64_t *v;
    size_t n, cap;
};
void samples_init(struct samples *s, size_t cap);
void samples_add(struct samples *s, int64_t v);
void samples_free(struct samples *s);
struct summary {
    size_t n;
    int64_t min, max, p50, p90, p99, p999;
    double mean, std;
};
/* sorts s->v in place */
struct summary summarise(struct samples *s);
/* the value below which `q` (0..1) of the sorted samples lie (nearest rank) */
int64_t quantile_sorted(const int64_t *v, size_t n, double q);

/* ---- JSON rows ---- */
struct row {
    FILE *out;
    int first;
};
void row_begin(struct row *r, FILE *out, const char *test);
void row_str(struct row *r, const char *key, const char *value);
void row_int(struct row *r, const char *key, int64_t value);
void row_num(struct row *r, const char *key, double value);
void row_bool(struct row *r, const char *key, int value);
/* {"n", "min_ns", "mean_ns", "std_ns", "p50_ns", "p99_ns", "p999_ns", "max_ns"} */
void row_summary(struct row *r, const char *key, const struct summary *s);
/* the sorted samples' CDF as [[value_ns, fraction], ...] at `points` quantiles (for the plots) */
void row_cdf(struct row *r, const char *key, const int64_t *sorted, size_t n, int points);
void row_ints(struct row *r, const char *key, const int64_t *v, size_t n);
/* raw JSON text for a value the caller builds */
void row_raw(struct row *r, const char *key, const char *json);
void row_end(struct row *r);
void json_string(FILE *out, const char *s);

/* ---- threads ---- */
/* the policy and priority `level` below the top (0 = opts->prio) for the calling thread;
 * returns 0, or an errno when the kernel refused (the row then says what was granted) */
int apply_level(const struct options *o, int level);
int pin_to(int cpu);
/* a thread pinned to o->cpu at `level`, with a small stack */
int start_thread(const struct options *o, int level, void *(*fn)(void *), void *arg, size_t stack_bytes,
                 void *thread_out);
const char *policy_name(const struct options *o);
/* whether SCHED_FIFO could be had at all (checked once) */
int fifo_permitted(const struct options *o);

/* ---- the tests ---- */
int test_calibrate(const struct options *o, FILE *out);
int test_switch(const struct options *o, FILE *out);
int test_irq(const struct options *o, FILE *out);
int test_irqrate(const struct options *o, FILE *out);
int test_sem(const struct options *o, FILE *out);
int test_mutex(const struct options *o, FILE *out);
int test_hygiene(const struct options *o, FILE *out);

void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#endif
