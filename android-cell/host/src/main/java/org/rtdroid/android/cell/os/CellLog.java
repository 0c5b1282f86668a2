package org.rtdroid.android.cell.os;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/**
 * The cell's logcat: a bounded ring of entries (sequence, time, level, tag, app, message), fed by
 * android.util.Log (through {@link CellLogShadow}) and by the host itself. Entries of level I and
 * above are also printed on stdout in logcat's brief format.
 */
public final class CellLog {
    public static final int CAPACITY = 20_000;
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("MM-dd HH:mm:ss.SSS");

    /** One line of the log; {@link #log} stamps its wall-clock time. */
    public record Entry(long seq, long wallMillis, String time, char level, String tag, String app, String message) {
        @Override
        public String toString() {
            return time + " " + level + "/" + tag + "(" + app + "): " + message;
        }
    }

    private static final Entry[] ring = new Entry[CAPACITY];
    private static long next = 1;
    private static volatile boolean echo = true;

    private CellLog() {
    }

    public static void log(char level, String tag, String app, String message, Throwable t) {
        String msg = message == null ? "null" : message;
        if (t != null) {
            StringWriter sw = new StringWriter();
            t.printStackTrace(new PrintWriter(sw));
            msg = msg + "\n" + sw.toString().stripTrailing();
        }
        Entry e;
        synchronized (ring) {
            e = new Entry(next, System.currentTimeMillis(), LocalDateTime.now().format(TIME), level,
                    tag == null ? "" : tag, app, msg);
            ring[(int) (next % CAPACITY)] = e;
            next++;
        }
        if (echo && "IWEA".indexOf(level) >= 0) {
            System.out.println(e);
        }
    }

    public static void i(String tag, String msg) {
        log('I', tag, "android", msg, null);
    }

    public static void w(String tag, String msg) {
        log('W', tag, "android", msg, null);
    }

    public static void e(String tag, String msg, Throwable t) {
        log('E', tag, "android", msg, t);
    }

    /** Entries with a sequence number above {@code since}, oldest first (at most {@code max}). */
    public static List<Entry> since(long since, int max) {
        List<Entry> out = new ArrayList<>();
        synchronized (ring) {
            long first = Math.max(since + 1, Math.max(1, next - CAPACITY));
            for (long s = first; s < next && out.size() < max; s++) {
                out.add(ring[(int) (s % CAPACITY)]);
            }
        }
        return out;
    }

    public static long lastSeq() {
        synchronized (ring) {
            return next - 1;
        }
    }
}
