package org.rtdroid.bench.rtjperf;

import java.util.Arrays;
import org.rtdroid.json.JsonWriter;

/**
 * A fixed array of measured times (ns) and the statistics RTJPerf reports of them: average,
 * standard deviation, 99 % bound ("the value that bounds the measurements in 99 % of the cases"),
 * worst, best, and the cumulative distribution. Filled without allocating.
 */
final class Samples {
    private final long[] v;
    private int n;

    Samples(int capacity) {
        v = new long[capacity];
    }

    void add(long ns) {
        if (n < v.length) {
            v[n++] = ns;
        }
    }

    int count() { return n; }

    void clear() { n = 0; }

    long get(int i) { return v[i]; }

    /** The value below or at which a fraction {@code q} of the samples lie (nearest rank). */
    static long quantile(long[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(1, Math.min(sorted.length, rank)) - 1];
    }

    long[] sorted() {
        long[] s = Arrays.copyOf(v, n);
        Arrays.sort(s);
        return s;
    }

    double mean() {
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += v[i];
        }
        return n == 0 ? 0 : sum / n;
    }

    double std() {
        double m = mean();
        double sq = 0;
        for (int i = 0; i < n; i++) {
            sq += (v[i] - m) * (v[i] - m);
        }
        return n > 1 ? Math.sqrt(sq / (n - 1)) : 0;
    }

    long p99() { return quantile(sorted(), 0.99); }

    /** {"n", "min_ns", "mean_ns", "std_ns", "p50_ns", "p99_ns", "p999_ns", "max_ns"} and a 40-point CDF. */
    void write(JsonWriter w, String name, boolean cdf) {
        long[] s = sorted();
        w.name(name).beginObject()
                .field("n", n)
                .field("min_ns", n == 0 ? 0 : s[0])
                .field("mean_ns", mean(), 1)
                .field("std_ns", std(), 1)
                .field("p50_ns", quantile(s, 0.5))
                .field("p99_ns", quantile(s, 0.99))
                .field("p999_ns", quantile(s, 0.999))
                .field("max_ns", n == 0 ? 0 : s[n - 1])
                .endObject();
        if (cdf) {
            w.name(name + "_cdf").beginArray();
            for (int i = 0; i <= 40 && n > 0; i++) {
                w.beginArray().value(quantile(s, i / 40.0)).value(i / 40.0, 3).endArray();
            }
            w.endArray();
        }
    }

    /** The samples in order of measurement, for a trend plot. */
    void writeSeries(JsonWriter w, String name) {
        w.name(name).beginArray();
        for (int i = 0; i < n; i++) {
            w.value(v[i]);
        }
        w.endArray();
    }
}
