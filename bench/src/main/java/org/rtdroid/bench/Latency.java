package org.rtdroid.bench;

import org.HdrHistogram.Histogram;

/**
 * A latency histogram in nanoseconds with a fixed range, so recording never resizes (and so never
 * allocates) on a measuring thread. Values above the range are clamped to it and counted.
 */
public final class Latency {
    /** 100 s: anything slower is clamped and reported as such. */
    public static final long HIGHEST_NANOS = 100_000_000_000L;

    private final Histogram histogram = new Histogram(1, HIGHEST_NANOS, 3);
    private long clamped;
    private long negative;

    /** Records one latency; call from one thread at a time. */
    public void recordNanos(long nanos) {
        if (nanos < 0) {
            negative++;
            nanos = 0;
        }
        if (nanos > HIGHEST_NANOS) {
            clamped++;
            nanos = HIGHEST_NANOS;
        }
        histogram.recordValue(nanos);
    }

    public void recordNanos(long nanos, long count) {
        histogram.recordValueWithCount(Math.min(Math.max(nanos, 0), HIGHEST_NANOS), count);
    }

    public Histogram histogram() {
        return histogram;
    }

    public long clamped() {
        return clamped;
    }

    public long negative() {
        return negative;
    }

    public void reset() {
        histogram.reset();
        clamped = 0;
        negative = 0;
    }
}
