package org.rtdroid.runtime.sensor;

/**
 * Latencies in nanoseconds, counted in log-linear buckets (eight per power of two, so a
 * percentile read back is an upper bound at most 12.5% above the latency it stands for; values
 * below 8 ns exactly). Fixed size, so recording allocates nothing: one writer thread records,
 * any thread may read (a read during a record may miss that one sample).
 */
final class LatencyHistogram {
    private static final int SUB_BITS = 3;
    private static final int SUB = 1 << SUB_BITS;
    /** Values at or above 2^MAX_EXPONENT ns (~2.4 h) share the last power of two's buckets. */
    private static final int MAX_EXPONENT = 43;
    private static final int BUCKETS = (MAX_EXPONENT - SUB_BITS) * SUB + 2 * SUB;

    private final long[] counts = new long[BUCKETS];
    private volatile long count;
    private volatile long max;

    /** Counts one latency; a negative one (clocks that disagree) counts as 0. */
    void record(long nanos) {
        long v = Math.max(0, nanos);
        counts[index(v)]++;
        if (v > max) {
            max = v;
        }
        count = count + 1;
    }

    long count() { return count; }

    /** The largest latency recorded, exactly; 0 when none was. */
    long max() { return max; }

    /**
     * An upper bound of the {@code fraction} quantile (0 < fraction <= 1): the upper edge of the
     * bucket holding it, never above {@link #max()}; 0 when nothing was recorded.
     */
    long percentile(double fraction) {
        if (!(fraction > 0 && fraction <= 1)) {
            throw new IllegalArgumentException("fraction " + fraction + " outside (0, 1]");
        }
        long n = 0;
        for (long c : counts) {
            n += c;
        }
        if (n == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(fraction * n);
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return i == BUCKETS - 1 ? max : Math.min(upperEdge(i), max);  // the last one has no upper edge
            }
        }
        return max;
    }

    static int index(long v) {
        if (v < SUB) {
            return (int) v;
        }
        int e = Math.min(63 - Long.numberOfLeadingZeros(v), MAX_EXPONENT);
        long top = Math.min(v >>> (e - SUB_BITS), 2 * SUB - 1);  // SUB..2*SUB-1: the leading bits
        return (e - SUB_BITS) * SUB + (int) top;
    }

    /** The largest value whose bucket is {@code i}. */
    static long upperEdge(int i) {
        if (i < SUB) {
            return i;
        }
        int e = i / SUB + SUB_BITS - 1;
        long top = i % SUB + SUB;
        return ((top + 1) << (e - SUB_BITS)) - 1;
    }
}
