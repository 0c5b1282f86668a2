/* Interrupt dispatch latency and sustained interrupt frequency (seed 002).
 *
 * Dispatch: a thread at the top priority sleeps until an absolute time on CLOCK_MONOTONIC; the
 * CPU's timer interrupt (the local APIC's or the generic timer's, programmed for that instant)
 * wakes it, and the latency is its first clock read minus the instant: hardware timer interrupt
 * to the first instruction of the waiting user thread. Where the cell has a periodic-interrupt
 * device (an RTC: /dev/rtc0 on an x86 cell), its interrupts are timed as well; the device's own
 * clock is not the CPU's, so those figures are the dispatch times' spread above the fastest one,
 * after fitting out the device's period and drift.
 *
 * Sustained frequency: a periodic timer (timerfd) at decreasing periods; each read tells how many
 * expirations happened since the last one, and every one beyond the first is an interrupt the
 * thread did not take in time: lost. */
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/rtc.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/timerfd.h>
#include <unistd.h>

static void timer_dispatch(const struct options *o, FILE *out) {
    long n = o->quick ? 1000 : 20000;
    int64_t interval = o->quick ? 500000 : 1000000;
    struct samples s;
    samples_init(&s, (size_t)n);
    int64_t next = now_ns() + interval;
    for (long i = 0; i < n; i++) {
        sleep_until_ns(next);
        int64_t t = now_ns();
        samples_add(&s, t - next);
        next += interval;
        if (next < t) { /* far behind (a stop of the whole cell): start the schedule again */
            next = t + interval;
        }
    }
    struct summary sum = summarise(&s);
    struct row r;
    row_begin(&r, out, "irq");
    row_str(&r, "source", "timer");
    row_str(&r, "policy", policy_name(o));
    row_int(&r, "interval_ns", interval);
    row_summary(&r, "latency", &sum);
    row_cdf(&r, "cdf", s.v, s.n, 40);
    row_end(&r);
    samples_free(&s);
}

static int rtc_open(const char *dev, int hz, char *why, size_t whylen) {
    int fd = open(dev, O_RDONLY);
    if (fd < 0) {
        snprintf(why, whylen, "%s: %s", dev, strerror(errno));
        return -1;
    }
    if (ioctl(fd, RTC_IRQP_SET, (unsigned long)hz) < 0 || ioctl(fd, RTC_PIE_ON, 0) < 0) {
        snprintf(why, whylen, "%s: periodic interrupts at %d Hz refused: %s", dev, hz, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* One read of the device's interrupt count, waiting at most a second: a device whose interrupt is
 * never delivered (an emulated RTC whose line the machine does not route) must not hold the probe
 * until its watchdog. 1: read; 0: nothing came (why says so); -1: the read failed (why says so). */
static int rtc_wait(int fd, const char *dev, int hz, unsigned long *data, char *why, size_t whylen) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int ready = poll(&p, 1, 1000);
    if (ready == 0) {
        snprintf(why, whylen, "%s: no periodic interrupt at %d Hz within 1 s (the interrupt is not delivered)", dev, hz);
        return 0;
    }
    if (ready < 0 || read(fd, data, sizeof *data) != (ssize_t)sizeof *data) {
        snprintf(why, whylen, "%s: read: %s", dev, strerror(errno));
        return -1;
    }
    return 1;
}

static void rtc_close(int fd) {
    ioctl(fd, RTC_PIE_OFF, 0);
    close(fd);
}

static void rtc_dispatch(const struct options *o, FILE *out) {
    int hz = 1024;
    long n = o->quick ? 1000 : 10000;
    char why[160];
    struct row r;
    row_begin(&r, out, "irq");
    row_str(&r, "source", "rtc");
    row_str(&r, "device", o->rtc);
    row_str(&r, "policy", policy_name(o));
    int fd = rtc_open(o->rtc, hz, why, sizeof why);
    if (fd < 0) {
        row_str(&r, "unavailable", why);
        row_end(&r);
        return;
    }
    int64_t *t = malloc((size_t)n * sizeof *t), *k = malloc((size_t)n * sizeof *k);
    int64_t seen = 0, lost = 0;
    for (long i = 0; i < n; i++) {
        unsigned long data;
        if (rtc_wait(fd, o->rtc, hz, &data, why, sizeof why) != 1) {
            n = i;
            break;
        }
        t[i] = now_ns();
        long count = (long)(data >> 8);
        seen += count;
        lost += count > 1 ? count - 1 : 0;
        k[i] = seen;
    }
    rtc_close(fd);
    if (n < 2) { /* nothing to fit: the device gave (almost) no interrupts */
        row_str(&r, "unavailable", why);
        row_end(&r);
        free(t);
        free(k);
        return;
    }
    /* least squares t = a + b k: the device's period as the CPU's clock sees it; the residuals
     * above the smallest one are how much later than its fastest dispatch each interrupt arrived */
    double mk = 0, mt = 0;
    for (long i = 0; i < n; i++) {
        mk += (double)k[i];
        mt += (double)(t[i] - t[0]);
    }
    mk /= (double)n;
    mt /= (double)n;
    double sxy = 0, sxx = 0;
    for (long i = 0; i < n; i++) {
        sxy += ((double)k[i] - mk) * ((double)(t[i] - t[0]) - mt);
        sxx += ((double)k[i] - mk) * ((double)k[i] - mk);
    }
    double b = sxx > 0 ? sxy / sxx : 1e9 / hz, a = mt - b * mk;
    struct samples s;
    samples_init(&s, (size_t)n);
    double lowest = 1e300;
    for (long i = 0; i < n; i++) {
        double res = (double)(t[i] - t[0]) - (a + b * (double)k[i]);
        lowest = res < lowest ? res : lowest;
    }
    for (long i = 0; i < n; i++) {
        samples_add(&s, (int64_t)((double)(t[i] - t[0]) - (a + b * (double)k[i]) - lowest));
    }
    struct summary sum = summarise(&s);
    row_int(&r, "hz", hz);
    row_num(&r, "measured_period_ns", b);
    row_int(&r, "interrupts", seen);
    row_int(&r, "lost", lost);
    row_str(&r, "meaning", "dispatch time above the fastest dispatch (the device's clock is not the CPU's)");
    row_summary(&r, "latency", &sum);
    row_cdf(&r, "cdf", s.v, s.n, 40);
    row_end(&r);
    samples_free(&s);
    free(t);
    free(k);
}

int test_irq(const struct options *o, FILE *out) {
    apply_level(o, 0);
    progress("irq: timer interrupt to thread");
    timer_dispatch(o, out);
    if (o->rtc) {
        progress("irq: %s periodic interrupt to thread", o->rtc);
        rtc_dispatch(o, out);
    }
    return 0;
}

static void rate_timer(const struct options *o, FILE *out, int64_t period, long n) {
    struct row r;
    row_begin(&r, out, "irqrate");
    row_str(&r, "source", "timer");
    row_str(&r, "policy", policy_name(o));
    row_int(&r, "period_ns", period);
    int fd = timerfd_create(CLOCK_MONOTONIC, 0);
    if (fd < 0) {
        row_str(&r, "unavailable", strerror(errno));
        row_end(&r);
        return;
    }
    struct itimerspec its = {.it_interval = {period / 1000000000, period % 1000000000},
                             .it_value = {period / 1000000000, period % 1000000000}};
    timerfd_settime(fd, 0, &its, NULL);
    long generated = 0, lost = 0, reads = 0;
    int64_t start = now_ns();
    while (generated < n) {
        uint64_t count;
        if (read(fd, &count, sizeof count) != (ssize_t)sizeof count) {
            break;
        }
        reads++;
        generated += (long)count;
        lost += count > 1 ? (long)count - 1 : 0;
        if (n >= 1000000 && generated / 1000000 != (generated - (long)count) / 1000000) {
            progress("irqrate: %ld of %ld interrupts, %ld lost", generated, n, lost);
        }
    }
    int64_t took = now_ns() - start;
    close(fd);
    row_int(&r, "generated", generated);
    row_int(&r, "lost", lost);
    row_int(&r, "taken", reads);
    row_int(&r, "elapsed_ns", took);
    row_end(&r);
}

static void rate_rtc(const struct options *o, FILE *out, int hz, long n) {
    char why[160];
    struct row r;
    row_begin(&r, out, "irqrate");
    row_str(&r, "source", "rtc");
    row_str(&r, "device", o->rtc);
    row_str(&r, "policy", policy_name(o));
    row_int(&r, "period_ns", 1000000000LL / hz);
    int fd = rtc_open(o->rtc, hz, why, sizeof why);
    if (fd < 0) {
        row_str(&r, "unavailable", why);
        row_end(&r);
        return;
    }
    long generated = 0, lost = 0, reads = 0;
    why[0] = 0;
    while (generated < n) {
        unsigned long data;
        if (rtc_wait(fd, o->rtc, hz, &data, why, sizeof why) != 1) {
            break;
        }
        long count = (long)(data >> 8);
        reads++;
        generated += count;
        lost += count > 1 ? count - 1 : 0;
    }
    rtc_close(fd);
    if (why[0]) {
        row_str(&r, "unavailable", why);
    }
    row_int(&r, "generated", generated);
    row_int(&r, "lost", lost);
    row_int(&r, "taken", reads);
    row_end(&r);
}

int test_irqrate(const struct options *o, FILE *out) {
    static const int64_t quick[] = {1000000, 300000, 100000, 50000, 20000};
    static const int64_t full[] = {1000000, 500000, 410000, 330000, 250000, 180000, 150000, 120000, 100000,
                                   80000,   60000,  50000,  40000,  30000,  20000,  15000,  10000};
    const int64_t *periods = o->irq_periods ? o->irq_periods_ns : o->quick ? quick : full;
    size_t count = o->irq_periods ? (size_t)o->irq_periods
                   : o->quick ? sizeof quick / sizeof *quick : sizeof full / sizeof *full;
    long n = o->irq_count ? o->irq_count : o->quick ? 1000 : 10000;
    apply_level(o, 0);
    for (size_t i = 0; i < count; i++) {
        progress("irqrate: timer every %lld us, %ld interrupts", (long long)periods[i] / 1000, n);
        rate_timer(o, out, periods[i], n);
        sleep_ns(2000000);
    }
    if (o->rtc && !o->irq_periods) {
        static const int hzs[] = {1024, 2048, 4096, 8192};
        for (size_t i = o->quick ? 2 : 0; i < sizeof hzs / sizeof *hzs; i++) {
            progress("irqrate: %s at %d Hz", o->rtc, hzs[i]);
            rate_rtc(o, out, hzs[i], o->quick ? 500 : 10000);
        }
    }
    return 0;
}
