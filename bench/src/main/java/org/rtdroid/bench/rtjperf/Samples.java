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

    /**
     * The 1-based ranks {@code {l, u}} of the order statistics that bound the {@code q}-quantile
     * with at least 95 % confidence, whatever the distribution: the count of samples at or below
     * the quantile is Binomial(n, q). {@code u} is capped at {@code n} (then the bound above is
     * the worst sample, with less than 97.5 % confidence on that side): 300 samples bound their
     * p99 between the 8th-worst and the worst, 2,000 between the 30th- and the 12th-worst. A p99
     * compared across series means little where these intervals overlap.
     */
    static int[] quantileCiRanks(int n, double q) {
        if (n == 0) {
            return new int[] {0, 0};
        }
        // log P(B = k) by the recurrence from P(B = 0) = (1 - q)^n, which underflows as a double
        double logPmf = n * Math.log1p(-q);
        double cdf = 0;
        int l = 1;
        int u = n;
        boolean lowFound = false;
        for (int k = 0; k <= n; k++) {
            cdf += Math.exp(logPmf);              // P(B <= k)
            if (!lowFound && cdf > 0.025) {
                l = Math.max(1, k);               // P(B <= l - 1) <= 0.025
                lowFound = true;
            }
            if (cdf >= 0.975) {
                u = Math.min(n, k + 1);           // P(B <= u - 1) >= 0.975
                break;
            }
            logPmf += Math.log((double) (n - k) / (k + 1)) + Math.log(q / (1 - q));
        }
        return new int[] {l, u};
    }

    /** {"n", "min_ns", "mean_ns", "std_ns", "p50_ns", "p99_ns", "p999_ns", "max_ns", "p99_ci_ns"} and a 40-point CDF. */
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
                .field("max_ns", n == 0 ? 0 : s[n - 1]);
        int[] ci = quantileCiRanks(n, 0.99);
        w.name("p99_ci_ns").beginArray().value(n == 0 ? 0 : s[ci[0] - 1]).value(n == 0 ? 0 : s[ci[1] - 1]).endArray()
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
