package org.rtdroid.runtime.sensor.sim;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import org.rtdroid.runtime.sensor.InputEvents;

/**
 * A recorded motion: samples of acceleration (m/s², gravity included) and rotation rate (rad/s)
 * at time offsets from the start. The text format, one sample per line:
 *
 * <pre>
 *   # rtdroid motion trace v1        (lines starting with # are comments; blank lines are ignored)
 *   # t_ms ax ay az gx gy gz
 *   0.000 0.000 0.000 9.807 0.000 0.000 0.000
 *   10.000 ...
 * </pre>
 *
 * Seven numbers per line separated by blanks: the offset in milliseconds (non-decreasing, at most
 * {@value #MAX_OFFSET_MS} ms), then ax ay az, then gx gy gz. Values must fit the devices' ranges
 * (±16 g, ±35 rad/s). At most {@value #MAX_SAMPLES} samples. Errors name the file and the line.
 */
public final class MotionTrace {
    public static final String HEADER = "# rtdroid motion trace v1";
    public static final int MAX_SAMPLES = 1_000_000;
    public static final double MAX_OFFSET_MS = 24 * 3600 * 1000.0;
    static final double MAX_ACCEL = (double) InputEvents.ACCEL_RANGE_UNITS / InputEvents.ACCEL_UNITS_PER_MS2;
    static final double MAX_RATE = (double) InputEvents.GYRO_RANGE_UNITS / InputEvents.GYRO_UNITS_PER_RADS;

    private final long[] offsetNanos;
    private final float[] values; // 6 per sample

    MotionTrace(long[] offsetNanos, float[] values) {
        this.offsetNanos = offsetNanos;
        this.values = values;
    }

    public int size() { return offsetNanos.length; }

    public long offsetNanos(int i) { return offsetNanos[i]; }

    /** Component {@code k} of sample {@code i}: 0..2 acceleration x, y, z, 3..5 rate x, y, z. */
    public float value(int i, int k) { return values[6 * i + k]; }

    public long durationNanos() { return offsetNanos.length == 0 ? 0 : offsetNanos[offsetNanos.length - 1]; }

    /** Raw accelerometer units of component {@code axis} (0..2) of sample {@code i}. */
    public int accelUnits(int i, int axis) { return Math.round(value(i, axis) * InputEvents.ACCEL_UNITS_PER_MS2); }

    /** Raw gyroscope units of component {@code axis} (0..2) of sample {@code i}. */
    public int gyroUnits(int i, int axis) { return Math.round(value(i, 3 + axis) * InputEvents.GYRO_UNITS_PER_RADS); }

    public static MotionTrace read(Path file) throws IOException {
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return parse(file.toString(), r);
        }
    }

    /** @throws IllegalArgumentException naming the source, the line and what is wrong */
    public static MotionTrace parse(String source, BufferedReader in) throws IOException {
        long[] t = new long[1024];
        float[] v = new float[6 * 1024];
        int n = 0;
        int lineNo = 0;
        String line;
        double lastMs = -1;
        while ((line = in.readLine()) != null) {
            lineNo++;
            String s = line.strip();
            if (s.isEmpty() || s.startsWith("#")) {
                continue;
            }
            String[] f = s.split("\\s+");
            if (f.length != 7) {
                throw bad(source, lineNo, "expected 7 numbers (t_ms ax ay az gx gy gz), found " + f.length);
            }
            double[] d = new double[7];
            for (int k = 0; k < 7; k++) {
                try {
                    d[k] = Double.parseDouble(f[k]);
                } catch (NumberFormatException e) {
                    throw bad(source, lineNo, "'" + f[k] + "' is not a number");
                }
                if (!Double.isFinite(d[k])) {
                    throw bad(source, lineNo, "'" + f[k] + "' is not finite");
                }
            }
            if (d[0] < 0 || d[0] > MAX_OFFSET_MS) {
                throw bad(source, lineNo, "time offset " + f[0] + " ms outside 0.." + (long) MAX_OFFSET_MS);
            }
            if (d[0] < lastMs) {
                throw bad(source, lineNo, "time offset " + f[0] + " ms goes back (previous " + lastMs + " ms)");
            }
            for (int k = 1; k <= 3; k++) {
                if (Math.abs(d[k]) > MAX_ACCEL) {
                    throw bad(source, lineNo, "acceleration " + f[k] + " m/s² outside ±" + MAX_ACCEL);
                }
            }
            for (int k = 4; k <= 6; k++) {
                if (Math.abs(d[k]) > MAX_RATE) {
                    throw bad(source, lineNo, "rotation rate " + f[k] + " rad/s outside ±" + MAX_RATE);
                }
            }
            if (n == MAX_SAMPLES) {
                throw bad(source, lineNo, "more than " + MAX_SAMPLES + " samples");
            }
            if (n == t.length) {
                t = Arrays.copyOf(t, 2 * n);
                v = Arrays.copyOf(v, 12 * n);
            }
            lastMs = d[0];
            t[n] = Math.round(d[0] * 1_000_000.0);
            for (int k = 0; k < 6; k++) {
                v[6 * n + k] = (float) d[k + 1];
            }
            n++;
        }
        if (n == 0) {
            throw new IllegalArgumentException(source + ": no samples");
        }
        return new MotionTrace(Arrays.copyOf(t, n), Arrays.copyOf(v, 6 * n));
    }

    private static IllegalArgumentException bad(String source, int line, String what) {
        return new IllegalArgumentException(source + ":" + line + ": " + what);
    }

    /** Writes the trace in the text format (with {@code comment} lines after the header). */
    public void write(Writer w, String... comment) throws IOException {
        w.write(HEADER + "\n");
        for (String c : comment) {
            w.write("# " + c + "\n");
        }
        w.write("# t_ms ax ay az gx gy gz  (m/s^2 including gravity, rad/s)\n");
        for (int i = 0; i < size(); i++) {
            w.write(String.format(Locale.ROOT, "%.3f %.3f %.3f %.3f %.3f %.3f %.3f%n", offsetNanos[i] / 1e6,
                    value(i, 0), value(i, 1), value(i, 2), value(i, 3), value(i, 4), value(i, 5)));
        }
    }
}
