package org.rtdroid.runtime.os;

import java.util.Arrays;
import java.util.StringJoiner;

/**
 * An immutable set of CPU numbers, as used by {@code sched_setaffinity} (up to {@link #MAX_CPUS}).
 *
 * <p>Parsed from the usual Linux list syntax ("1", "0-3", "0,2-3") so that board files and the
 * command line can name the cell's CPUs the way {@code taskset} and {@code isolcpus} do.
 */
public final class CpuSet {
    /** cpu_set_t in glibc is 1024 bits. */
    public static final int MAX_CPUS = 1024;
    static final int WORDS = MAX_CPUS / 64;

    private final long[] bits;

    private CpuSet(long[] bits) {
        this.bits = bits;
    }

    public static CpuSet of(int... cpus) {
        long[] b = new long[WORDS];
        for (int cpu : cpus) {
            if (cpu < 0 || cpu >= MAX_CPUS) {
                throw new IllegalArgumentException("CPU number " + cpu + " is outside 0.." + (MAX_CPUS - 1));
            }
            b[cpu >>> 6] |= 1L << (cpu & 63);
        }
        return new CpuSet(b);
    }

    /** Parses "0", "0-3", "0,2-3". Whitespace around items is allowed; an empty list is rejected. */
    public static CpuSet parse(String list) {
        if (list == null || list.isBlank()) {
            throw new IllegalArgumentException("CPU list is empty (expected e.g. \"1\" or \"0-1\")");
        }
        long[] b = new long[WORDS];
        for (String item : list.split(",")) {
            String s = item.trim();
            int dash = s.indexOf('-');
            int lo;
            int hi;
            try {
                if (dash < 0) {
                    lo = hi = Integer.parseInt(s);
                } else {
                    lo = Integer.parseInt(s.substring(0, dash).trim());
                    hi = Integer.parseInt(s.substring(dash + 1).trim());
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("CPU list \"" + list + "\": item \"" + s + "\" is not a number or range");
            }
            if (lo < 0 || hi >= MAX_CPUS || lo > hi) {
                throw new IllegalArgumentException("CPU list \"" + list + "\": range \"" + s + "\" is invalid (CPUs are 0.." + (MAX_CPUS - 1) + ")");
            }
            for (int c = lo; c <= hi; c++) {
                b[c >>> 6] |= 1L << (c & 63);
            }
        }
        return new CpuSet(b);
    }

    static CpuSet fromWords(long[] words) {
        return new CpuSet(words.clone());
    }

    long word(int i) {
        return bits[i];
    }

    public boolean contains(int cpu) {
        return cpu >= 0 && cpu < MAX_CPUS && (bits[cpu >>> 6] & (1L << (cpu & 63))) != 0;
    }

    public int size() {
        int n = 0;
        for (long w : bits) {
            n += Long.bitCount(w);
        }
        return n;
    }

    public boolean isEmpty() {
        return size() == 0;
    }

    /** @return the CPU numbers in ascending order */
    public int[] toArray() {
        int[] out = new int[size()];
        int k = 0;
        for (int c = 0; c < MAX_CPUS; c++) {
            if (contains(c)) {
                out[k++] = c;
            }
        }
        return out;
    }

    /** @return the lowest CPU in the set, or -1 if empty */
    public int first() {
        for (int c = 0; c < MAX_CPUS; c++) {
            if (contains(c)) {
                return c;
            }
        }
        return -1;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CpuSet other && Arrays.equals(bits, other.bits);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bits);
    }

    /** Linux list syntax, e.g. "0-1,3". */
    @Override
    public String toString() {
        StringJoiner j = new StringJoiner(",");
        int c = 0;
        while (c < MAX_CPUS) {
            if (!contains(c)) {
                c++;
                continue;
            }
            int start = c;
            while (c + 1 < MAX_CPUS && contains(c + 1)) {
                c++;
            }
            j.add(start == c ? Integer.toString(start) : start + "-" + c);
            c++;
        }
        return j.toString();
    }
}
