package org.rtdroid.bench.tasks;

import org.rtdroid.bench.Latency;
import org.rtdroid.bench.Samples;

/**
 * The releases of one measured task (Table 4.2): for each release its planned time, when its job
 * began and when it ended. Pre-allocated; one thread records.
 */
public final class TaskDurations {
    public final Latency duration = new Latency();
    /** release_ns (from the first measured release), start_ns (release to begin), duration_ns (begin to end). */
    public final Samples samples;
    private final long deadlineNanos;
    private final int skip;
    private long first = -1;
    private long seen;
    private long misses;
    private double sum;
    private double sumSquares;

    /** @param skip releases left out first (the JIT's warm-up) */
    public TaskDurations(int releases, long deadlineNanos, int skip) {
        this.samples = new Samples(releases, "release_ns", "start_ns", "duration_ns");
        this.deadlineNanos = deadlineNanos;
        this.skip = skip;
    }

    /** One release; @return false once {@code releases} are recorded. */
    public boolean record(long releaseNanos, long beginNanos, long endNanos) {
        if (seen++ < skip) {
            return true;
        }
        if (samples.count() == samples.capacity()) {
            return false;
        }
        if (first < 0) {
            first = releaseNanos;
        }
        long d = endNanos - beginNanos;
        duration.recordNanos(d);
        samples.add(releaseNanos - first, beginNanos - releaseNanos, d);
        sum += d;
        sumSquares += (double) d * d;
        if (endNanos - releaseNanos > deadlineNanos) {
            misses++;
        }
        return samples.count() < samples.capacity();
    }

    public boolean done() {
        return samples.count() == samples.capacity();
    }

    public long count() {
        return samples.count();
    }

    public long deadlineMisses() {
        return misses;
    }

    public double meanMicros() {
        long n = samples.count();
        return n == 0 ? Double.NaN : Math.round(sum / n / 10.0) / 100.0;
    }

    public double sdMicros() {
        long n = samples.count();
        if (n < 2) {
            return 0;
        }
        double mean = sum / n;
        double var = Math.max(0, (sumSquares - n * mean * mean) / (n - 1));
        return Math.round(Math.sqrt(var) / 10.0) / 100.0;
    }
}
