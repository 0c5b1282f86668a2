package org.rtdroid.runtime.validation;

import java.util.Locale;

/** Durations for people: the largest of s, ms, us, ns that shows the value exactly, else ms with decimals. */
final class Durations {
    private Durations() {}

    static String format(long nanos) {
        if (nanos == 0) {
            return "0 ms";
        }
        if (nanos == Long.MAX_VALUE) {
            return "unbounded";
        }
        if (nanos % 1_000_000_000L == 0) {
            return nanos / 1_000_000_000L + " s";
        }
        if (nanos % 1_000_000L == 0) {
            return nanos / 1_000_000L + " ms";
        }
        if (nanos % 1_000L == 0) {
            return nanos / 1_000L + " us";
        }
        return String.format(Locale.ROOT, "%.6f ms", nanos / 1e6);
    }
}
