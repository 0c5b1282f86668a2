package org.rtdroid.runtime.manifest;

import java.util.Locale;

/** Parses the manifest's sizes ("256B", "64K", "3M") and durations ("8ms", "20us", "0ms"). */
final class Units {
    private Units() {}

    /** Binary multiples: K = KiB, M = MiB, G = GiB. @return -1 if malformed */
    static long parseSizeBytes(String text) {
        String s = text.trim().toUpperCase(Locale.ROOT);
        long mult = 1;
        String num = s;
        String[][] suffixes = {{"KIB", "1024"}, {"MIB", "1048576"}, {"GIB", "1073741824"},
            {"KB", "1024"}, {"MB", "1048576"}, {"GB", "1073741824"},
            {"K", "1024"}, {"M", "1048576"}, {"G", "1073741824"}, {"B", "1"}};
        for (String[] sfx : suffixes) {
            if (s.endsWith(sfx[0])) {
                mult = Long.parseLong(sfx[1]);
                num = s.substring(0, s.length() - sfx[0].length()).trim();
                break;
            }
        }
        try {
            long v = Long.parseLong(num);
            if (v < 0 || v > Long.MAX_VALUE / mult) {
                return -1;
            }
            return v * mult;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Units ns, us, ms, s; a unit is required. @return -1 if malformed */
    static long parseDurationNanos(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        long mult;
        String num;
        if (s.endsWith("ns")) {
            mult = 1; num = s.substring(0, s.length() - 2);
        } else if (s.endsWith("us") || s.endsWith("µs")) {
            mult = 1_000; num = s.substring(0, s.length() - 2);
        } else if (s.endsWith("ms")) {
            mult = 1_000_000; num = s.substring(0, s.length() - 2);
        } else if (s.endsWith("s")) {
            mult = 1_000_000_000; num = s.substring(0, s.length() - 1);
        } else {
            return -1;
        }
        try {
            long v = Long.parseLong(num.trim());
            if (v < 0 || v > Long.MAX_VALUE / mult) {
                return -1;
            }
            return v * mult;
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
