/* Seed 002's two calibration tests. Tracing overhead: what reading the clock costs and the
 * smallest step it shows (every other figure is rounded to it). Clock-tick processing: a busy loop
 * at the test's top priority reads the clock back to back; a gap far above a read's cost is the CPU
 * taken away from it, by the timer tick's processing (and any other interrupt) alone, since no
 * thread can preempt it. */
#include "probe.h"

#include <stdlib.h>

int test_calibrate(const struct options *o, FILE *out) {
    apply_level(o, 0);
    struct timespec res;
    clock_getres(CLOCK_MONOTONIC, &res);

    /* back-to-back reads: their difference is the cost of one read (and the clock's step) */
    size_t reads = o->quick ? 20000 : 200000;
    struct samples d;
    samples_init(&d, reads);
    int64_t step = INT64_MAX;
    for (size_t i = 0; i < reads; i++) {
        int64_t a = now_ns();
        int64_t b = now_ns();
        samples_add(&d, b - a);
        if (b > a && b - a < step) {
            step = b - a;
        }
    }
    struct summary read = summarise(&d);

    /* the busy loop, in slices that leave the CPU to the cell's other work between them (its
     * agent's heartbeat on the RT cell); a gap is a read-to-read time above 20 x the median read */
    int64_t slice = 100000000, total = o->quick ? 300000000 : 2000000000;
    int64_t threshold = read.p50 * 20 > 1000 ? read.p50 * 20 : 1000;
    struct samples gaps, intervals;
    samples_init(&gaps, 1024);
    samples_init(&intervals, 1024);
    int64_t spun = 0;
    while (spun < total) {
        int64_t start = now_ns(), prev = start, last_gap = -1;
        while (prev - start < slice) {
            int64_t t = now_ns();
            if (t - prev > threshold) {
                samples_add(&gaps, t - prev);
                if (last_gap >= 0) {
                    samples_add(&intervals, prev - last_gap);
                }
                last_gap = prev;
            }
            prev = t;
        }
        spun += prev - start;
        sleep_ns(5000000);
    }
    struct summary g = summarise(&gaps), iv = summarise(&intervals);

    struct row r;
    row_begin(&r, out, "calibrate");
    row_str(&r, "policy", policy_name(o));
    row_int(&r, "clock_getres_ns", (int64_t)res.tv_sec * 1000000000 + res.tv_nsec);
    row_int(&r, "resolution_ns", step == INT64_MAX ? 0 : step);
    row_summary(&r, "clock_read", &read);
    row_int(&r, "busy_loop_ns", spun);
    row_int(&r, "gap_threshold_ns", threshold);
    row_summary(&r, "gap", &g);
    row_summary(&r, "gap_interval", &iv);
    row_num(&r, "gaps_per_s", spun ? (double)g.n * 1e9 / (double)spun : 0);
    if (g.n) {
        double stolen = 0;
        for (size_t i = 0; i < gaps.n; i++) {
            stolen += (double)gaps.v[i];
        }
        row_num(&r, "stolen_fraction", stolen / (double)spun);
    }
    row_cdf(&r, "gap_cdf", gaps.v, gaps.n, 40);
    row_end(&r);
    samples_free(&d);
    samples_free(&gaps);
    samples_free(&intervals);
    return 0;
}
