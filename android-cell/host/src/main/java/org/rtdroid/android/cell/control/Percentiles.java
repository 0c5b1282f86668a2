package org.rtdroid.android.cell.control;

import java.util.Arrays;
import org.rtdroid.json.JsonWriter;

/** Percentile summaries of latency samples (nearest rank over the sorted samples). */
public final class Percentiles {
    private Percentiles() {
    }

    /** {n, min, p50, p90, p99, max} of the non-negative samples as JSON ({"n":0} when none). */
    static String summaryJson(long[] samples) {
        long[] s = Arrays.stream(samples).filter(x -> x >= 0).sorted().toArray();
        JsonWriter w = new JsonWriter().beginObject().field("n", s.length);
        if (s.length > 0) {
            w.field("min", s[0]).field("p50", nearestRank(s, 0.50)).field("p90", nearestRank(s, 0.90))
                    .field("p99", nearestRank(s, 0.99)).field("max", s[s.length - 1]);
        }
        return w.endObject().toString();
    }

    /** The q-quantile of sorted samples by the nearest-rank method. */
    static long nearestRank(long[] sorted, double q) {
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    /** Element-wise sum of two sample series of one length (two shares of one round trip). */
    static long[] sum(long[] a, long[] b) {
        long[] out = new long[a.length];
        for (int i = 0; i < a.length; i++) {
            out[i] = a[i] + b[i];
        }
        return out;
    }
}
