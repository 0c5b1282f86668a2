/* rtdroid-probe [options] TEST... : see ../README.md. Exit 0 when every test ran, 1 when one
 * failed to run, 2 on a bad command line (one line naming what is wrong), 3 when the watchdog
 * stopped a test that overran its bound. */
#include "probe.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

static const struct {
    const char *name;
    int (*run)(const struct options *, FILE *);
} TESTS[] = {
    {"hygiene", test_hygiene}, {"calibrate", test_calibrate}, {"switch", test_switch}, {"irq", test_irq},
    {"irqrate", test_irqrate}, {"sem", test_sem},             {"mutex", test_mutex},
};
#define NTESTS (sizeof TESTS / sizeof *TESTS)

static void usage(FILE *f) {
    fprintf(f, "usage: rtdroid-probe [--cpu N] [--policy fifo|other] [--prio 2..99] [--quick] [--rtc DEVICE]\n"
               "                     [--set-governor NAME] [--set-rt-runtime-us N] [--set-oom-score-adj N] [--oom-pid PID]\n"
               "                     [--irq-count N] [--irq-periods-us P,P,...]\n"
               "                     all | TEST...   (TEST: hygiene calibrate switch irq irqrate sem mutex)\n");
}

static int bad(const char *fmt, const char *what) {
    fprintf(stderr, "rtdroid-probe: ");
    fprintf(stderr, fmt, what);
    fputc('\n', stderr);
    return 2;
}

static int number(const char *s, long lo, long hi, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        return -1;
    }
    *out = v;
    return 0;
}

/* The watchdog: a test that overruns its bound (a wait that never ends, a CPU taken away for good)
 * ends the whole process, every thread with it, and says which test it was. */
static volatile const char *current_test = "start-up";

static void overrun(int sig) {
    (void)sig;
    static const char msg[] = "rtdroid-probe: watchdog: a test overran its bound and was stopped: ";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    const char *t = (const char *)current_test;
    ignored = write(2, t, strlen(t));
    ignored = write(2, "\n", 1);
    (void)ignored;
    _exit(3);
}

/* "410,390,..." (us) into o->irq_periods_ns; 0, or -1 when one is not a period */
static int periods_us(const char *v, struct options *o) {
    char buf[256];
    if (strlen(v) >= sizeof buf) return -1;
    strcpy(buf, v);
    o->irq_periods = 0;
    for (char *save = NULL, *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        long us;
        if (o->irq_periods == IRQ_PERIODS_MAX || number(p, 5, 1000000, &us)) return -1;
        o->irq_periods_ns[o->irq_periods++] = (int64_t)us * 1000;
    }
    return o->irq_periods ? 0 : -1;
}

/* The watchdog's allowance for one test: a quick one takes seconds, a full one a minute or two,
 * under emulation more; irqrate's long form as long as its interrupts take, and half as long again. */
static unsigned allowance_s(const struct options *o, const char *test) {
    unsigned base = o->quick ? 300 : 1800;
    if (strcmp(test, "irqrate") || !(o->irq_count || o->irq_periods)) return base;
    long n = o->irq_count ? o->irq_count : o->quick ? 1000 : 10000;
    double s = 0;
    for (int i = 0; i < o->irq_periods; i++) s += (double)n * (double)o->irq_periods_ns[i] / 1e9;
    if (!o->irq_periods) s = (double)n * 1e-3 * 17;  /* at most the full series' 17 periods of <= 1 ms */
    return base + (unsigned)(s * 1.5);
}

int main(int argc, char **argv) {
    struct options o = {.cpu = -1, .policy = POLICY_FIFO, .prio = 80, .set_rt_runtime_us = LONG_MIN,
                        .set_oom_adj = INT_MIN};
    int chosen[NTESTS] = {0}, any = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        long n;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--quick")) {
            o.quick = 1;
        } else if (!strcmp(a, "--cpu") || !strcmp(a, "--prio") || !strcmp(a, "--policy") || !strcmp(a, "--rtc")
                   || !strcmp(a, "--set-governor") || !strcmp(a, "--set-rt-runtime-us")
                   || !strcmp(a, "--set-oom-score-adj") || !strcmp(a, "--oom-pid") || !strcmp(a, "--irq-count")
                   || !strcmp(a, "--irq-periods-us")) {
            if (!v) {
                return bad("%s needs a value", a);
            }
            i++;
            if (!strcmp(a, "--cpu")) {
                if (number(v, 0, CPU_SETSIZE - 1, &n)) return bad("--cpu %s: must be a CPU number", v);
                o.cpu = (int)n;
            } else if (!strcmp(a, "--prio")) {
                if (number(v, 13, 99, &n)) return bad("--prio %s: must be 13..99 (tests use up to 11 levels below it)", v);
                o.prio = (int)n;
            } else if (!strcmp(a, "--policy")) {
                if (!strcmp(v, "fifo")) o.policy = POLICY_FIFO;
                else if (!strcmp(v, "other")) o.policy = POLICY_OTHER;
                else return bad("--policy %s: must be fifo or other", v);
            } else if (!strcmp(a, "--rtc")) {
                o.rtc = v;
            } else if (!strcmp(a, "--set-governor")) {
                if (!*v || strlen(v) > 32 || strchr(v, '/')) return bad("--set-governor %s: not a governor name", v);
                o.set_governor = v;
            } else if (!strcmp(a, "--set-rt-runtime-us")) {
                if (number(v, -1, INT_MAX, &n)) return bad("--set-rt-runtime-us %s: must be -1 or a number of us", v);
                o.set_rt_runtime_us = n;
            } else if (!strcmp(a, "--irq-count")) {
                if (number(v, 1, 1000000000, &n)) return bad("--irq-count %s: must be 1..1000000000 interrupts", v);
                o.irq_count = n;
            } else if (!strcmp(a, "--irq-periods-us")) {
                if (periods_us(v, &o)) {
                    return bad("--irq-periods-us %s: must be 1 to 32 periods of 5..1000000 us, comma-separated", v);
                }
            } else if (!strcmp(a, "--set-oom-score-adj")) {
                if (number(v, -1000, 1000, &n)) return bad("--set-oom-score-adj %s: must be -1000..1000", v);
                o.set_oom_adj = (int)n;
            } else {
                if (number(v, 1, INT_MAX, &n)) return bad("--oom-pid %s: must be a process id", v);
                o.oom_pid = (int)n;
            }
        } else if (!strcmp(a, "all")) {
            for (size_t t = 0; t < NTESTS; t++) chosen[t] = 1;
            any = 1;
        } else {
            size_t t = 0;
            while (t < NTESTS && strcmp(a, TESTS[t].name)) t++;
            if (t == NTESTS) {
                usage(stderr);
                return bad("unknown test or option '%s'", a);
            }
            chosen[t] = any = 1;
        }
    }
    if (!any) {
        usage(stderr);
        return bad("%s", "no test named");
    }
    if (o.cpu < 0) {
        cpu_set_t set;
        sched_getaffinity(0, sizeof set, &set);
        for (int c = 0; c < CPU_SETSIZE; c++) {
            if (CPU_ISSET(c, &set)) {
                o.cpu = c;
                break;
            }
        }
    }
    if (pin_to(o.cpu) != 0) {
        fprintf(stderr, "rtdroid-probe: --cpu %d: this process may not run there\n", o.cpu);
        return 2;
    }
    if (o.policy == POLICY_FIFO && !fifo_permitted(&o)) {
        progress("SCHED_FIFO is not permitted here: the tests run at SCHED_OTHER, and every row says so");
        o.policy = POLICY_OTHER;
    }
    /* the dispatch latency of the OS, not the 50 us a SCHED_OTHER thread's timer slack adds by
     * default (threads inherit it) */
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    /* page faults in the middle of a measurement are not what the tests measure; each test's
     * warm-up touches what it measures, and MCL_ONFAULT locks those pages as they are touched
     * instead of committing every mapping whole (1,000 threads' stacks ran a 512 MiB cell out of
     * memory) */
    if (mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT) != 0) {
        mlockall(MCL_CURRENT | MCL_FUTURE);
    }
    signal(SIGALRM, overrun);
    int failed = 0;
    for (size_t t = 0; t < NTESTS; t++) {
        if (chosen[t]) {
            /* generous: a quick test takes seconds, a full one a minute or two, under emulation more */
            current_test = TESTS[t].name;
            alarm(allowance_s(&o, TESTS[t].name));
            failed |= TESTS[t].run(&o, stdout);
            alarm(0);
        }
    }
    return failed ? 1 : 0;
}
