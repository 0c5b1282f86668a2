package org.rtdroid.runtime.manifest;

/**
 * The manifest's numbers, sizes ("256B", "64K", "3M") and durations ("8ms", "20us", "0ms"), by one
 * strict rule: ASCII digits only (no sign, no space, no other digits), then the unit exactly as the
 * schema spells it ({@code manifest.xsd}'s {@code number}, {@code size}, {@code duration}). The
 * Python CLI reads {@code versionCode} by the same rule ({@code xcc.bundle.manifest_number}).
 */
final class Units {
    private Units() {}

    private static final String[] SIZE_UNITS = {"KiB", "MiB", "GiB", "KB", "MB", "GB", "K", "M", "G", "B"};
    private static final long[] SIZE_MULTIPLIERS = {1L << 10, 1L << 20, 1L << 30, 1L << 10, 1L << 20, 1L << 30,
        1L << 10, 1L << 20, 1L << 30, 1};
    private static final String[] DURATION_UNITS = {"ns", "us", "µs", "ms", "s"};
    private static final long[] DURATION_MULTIPLIERS = {1, 1_000, 1_000, 1_000_000, 1_000_000_000};

    /** Digits only. @return the value, -1 if not digits only, -2 if larger than a long */
    static long parseNumber(String text) {
        if (text == null || text.isEmpty()) {
            return -1;
        }
        long v = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            if (v > (Long.MAX_VALUE - (c - '0')) / 10) {
                return -2;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }

    /** Binary multiples: K = KiB, M = MiB, G = GiB. @return -1 if malformed or too large */
    static long parseSizeBytes(String text) {
        return withUnit(text, SIZE_UNITS, SIZE_MULTIPLIERS);
    }

    /** Units ns, us (µs), ms, s; a unit is required. @return -1 if malformed or too large */
    static long parseDurationNanos(String text) {
        return withUnit(text, DURATION_UNITS, DURATION_MULTIPLIERS);
    }

    private static long withUnit(String text, String[] units, long[] multipliers) {
        if (text == null) {
            return -1;
        }
        for (int u = 0; u < units.length; u++) {
            if (text.endsWith(units[u])) {
                long v = parseNumber(text.substring(0, text.length() - units[u].length()));
                if (v < 0 || v > Long.MAX_VALUE / multipliers[u]) {
                    return -1;
                }
                return v * multipliers[u];
            }
        }
        return -1;
    }
}
