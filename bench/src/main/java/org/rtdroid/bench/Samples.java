package org.rtdroid.bench;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The raw samples of one row, kept beside its JSON as CSV so that any figure can be redrawn and any
 * statistic recomputed: one line per event, its columns named at construction (all in nanoseconds
 * or counts, as their names say). Pre-allocated: recording never allocates, so a measuring thread
 * may call {@link #add} on its real-time path. Events past the capacity are counted in
 * {@link #overflow()}, not kept (the row's histogram still has them).
 */
public final class Samples {
    private final String[] columns;
    private final long[] values;
    private final int capacity;
    private int count;
    private long overflow;

    /** @param columns the CSV header, e.g. {@code "t_ns", "latency_ns"} */
    public Samples(int capacity, String... columns) {
        if (capacity < 1 || columns.length == 0) {
            throw new IllegalArgumentException("samples: capacity " + capacity + ", " + columns.length + " columns");
        }
        if ((long) capacity * columns.length > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("samples: " + capacity + " x " + columns.length + " values do not fit an array");
        }
        this.columns = columns.clone();
        this.capacity = capacity;
        this.values = new long[capacity * columns.length];
    }

    public String[] columns() {
        return columns.clone();
    }

    public int count() {
        return count;
    }

    public int capacity() {
        return capacity;
    }

    public long overflow() {
        return overflow;
    }

    public long get(int sample, int column) {
        if (sample >= count) {
            throw new IndexOutOfBoundsException("sample " + sample + " of " + count);
        }
        return values[sample * columns.length + column];
    }

    /** One event of a one-column table. */
    public void add(long a) {
        int at = slot(1);
        if (at >= 0) {
            values[at] = a;
        }
    }

    public void add(long a, long b) {
        int at = slot(2);
        if (at >= 0) {
            values[at] = a;
            values[at + 1] = b;
        }
    }

    public void add(long a, long b, long c) {
        int at = slot(3);
        if (at >= 0) {
            values[at] = a;
            values[at + 1] = b;
            values[at + 2] = c;
        }
    }

    public void add(long a, long b, long c, long d) {
        int at = slot(4);
        if (at >= 0) {
            values[at] = a;
            values[at + 1] = b;
            values[at + 2] = c;
            values[at + 3] = d;
        }
    }

    public void add(long a, long b, long c, long d, long e) {
        int at = slot(5);
        if (at >= 0) {
            values[at] = a;
            values[at + 1] = b;
            values[at + 2] = c;
            values[at + 3] = d;
            values[at + 4] = e;
        }
    }

    private int slot(int arity) {
        if (arity != columns.length) {
            throw new IllegalArgumentException("samples: " + arity + " values for " + columns.length + " columns");
        }
        if (count == capacity) {
            overflow++;
            return -1;
        }
        return count++ * arity;
    }

    public void clear() {
        count = 0;
        overflow = 0;
    }

    /** Writes the header and one line per kept event. */
    public void writeCsv(Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        try (BufferedWriter w = Files.newBufferedWriter(file)) {
            w.write(String.join(",", columns));
            w.newLine();
            StringBuilder line = new StringBuilder(64);
            for (int i = 0; i < count; i++) {
                line.setLength(0);
                for (int c = 0; c < columns.length; c++) {
                    if (c > 0) {
                        line.append(',');
                    }
                    line.append(values[i * columns.length + c]);
                }
                w.write(line.toString());
                w.newLine();
            }
        }
    }
}
