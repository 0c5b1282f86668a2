package org.rtdroid.runtime.os;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The RT cell's flight recorder, for misses nothing outside the cell explains: the kernel's
 * function-free event tracer (ftrace, through tracefs) records scheduling, interrupts and timers
 * into its bounded per-CPU ring all the time, and the first release whose response exceeds a bound
 * (or misses its deadline), or the first callback whose code uses more CPU time than its declared
 * cost, freezes it, as cyclictest's {@code --breaktrace} does: a
 * {@code trace_marker} line naming the task, the release and the response, then {@code 0} to
 * {@code tracing_on}. Both go through descriptors opened when the recorder is armed, from a
 * pre-allocated native buffer: the freeze allocates nothing. The ring then holds the last
 * {@code buffer_size_kb} per CPU before the slow release, until someone saves it ({@link #save}).
 *
 * <p>Opt-in: disarmed (the default), a release costs one read of a static field. Armed by
 * {@link #arm} (the RT cell agent's {@code --flight-recorder BOUND_US}); only one recorder is armed
 * in a process, and it fires once.
 */
public final class FlightRecorder {
    /** Where the kernel mounts tracefs. */
    public static final Path TRACEFS = Path.of("/sys/kernel/tracing");
    /** Per-CPU ring size: a few seconds of a busy cell's scheduling, interrupt and timer events. */
    public static final int DEFAULT_BUFFER_KB = 4096;
    /** The event groups recorded; a group this kernel lacks (irq_vectors is x86's) is left out. */
    static final List<String> EVENTS = List.of("sched/sched_switch", "sched/sched_wakeup", "sched/sched_waking",
            "sched/sched_migrate_task", "irq", "irq_vectors", "timer", "workqueue");

    private static final int MARKER_BYTES = 256;
    private static volatile FlightRecorder armed;

    private final Path tracefs;
    private final long boundNanos;
    private final int tracingOnFd;
    private final int markerFd;
    private final List<String> events;
    private final MemorySegment buf = Arena.global().allocate(MARKER_BYTES);
    private final AtomicBoolean fired = new AtomicBoolean();
    private volatile long frozenRelease;
    private volatile long frozenResponseNanos;
    private volatile byte[] frozenTask;
    private volatile String frozenWhat;
    private volatile long frozenOverNanos;

    private FlightRecorder(Path tracefs, long boundNanos, int tracingOnFd, int markerFd, List<String> events) {
        this.tracefs = tracefs;
        this.boundNanos = boundNanos;
        this.tracingOnFd = tracingOnFd;
        this.markerFd = markerFd;
        this.events = events;
    }

    /**
     * Sets up tracefs (tracing off, no function tracer, the monotonic clock so that times compare
     * with the runtime's, the ring size, the events), clears the ring, opens the two descriptors
     * the freeze writes to, turns tracing on and arms the recorder for this process.
     *
     * @param boundNanos a release whose response exceeds it freezes the trace (a deadline miss does too)
     * @throws IOException when tracefs is not there or refuses a setting (the message says which)
     */
    public static synchronized FlightRecorder arm(Path tracefs, long boundNanos, int bufferKb) throws IOException {
        if (boundNanos <= 0 || bufferKb <= 0) {
            throw new IllegalArgumentException("flight recorder: bound and buffer must be positive");
        }
        if (!Files.isRegularFile(tracefs.resolve("tracing_on"))) {
            throw new IOException("no tracefs at " + tracefs + " (mount -t tracefs nodev " + tracefs + ")");
        }
        disarm();
        set(tracefs, "tracing_on", "0");
        set(tracefs, "current_tracer", "nop");
        set(tracefs, "trace_clock", "mono");
        set(tracefs, "buffer_size_kb", Integer.toString(bufferKb));
        List<String> enabled = new ArrayList<>();
        for (String e : EVENTS) {
            if (Files.exists(tracefs.resolve("events").resolve(e).resolve("enable"))) {
                set(tracefs, "events/" + e + "/enable", "1");
                enabled.add(e);
            }
        }
        Files.write(tracefs.resolve("trace"), new byte[0]);  // opened with O_TRUNC: clears the ring
        int on = open(tracefs.resolve("tracing_on"));
        int marker = open(tracefs.resolve("trace_marker"));
        FlightRecorder r = new FlightRecorder(tracefs, boundNanos, on, marker, List.copyOf(enabled));
        // Tracing goes on through the freeze's own code (a marker line, then the tracing_on write):
        // its first run links the native calls and the buffer's accesses, milliseconds of a cold
        // JVM (measured: a cold freeze made the next task 4 ms late), which must not fall on the
        // release it records.
        r.mark("armed", boundNanos, (byte) '1');
        armed = r;
        return r;
    }

    /** The armed recorder, or null. */
    public static FlightRecorder armed() { return armed; }

    /** Disarms the recorder of this process (its trace stays as it is) and closes its descriptors. */
    public static synchronized void disarm() {
        FlightRecorder r = armed;
        armed = null;
        if (r != null) {
            PosixIo.close(r.tracingOnFd);
            PosixIo.close(r.markerFd);
        }
    }

    /**
     * A release's end, on the real-time path: freezes the trace at the first release over the
     * bound or past its deadline. Allocation-free; a disarmed recorder costs one field read.
     *
     * @param task the task's name as ASCII bytes (made once, at deployment)
     */
    public static void released(byte[] task, long release, long responseNanos, boolean deadlineMissed) {
        FlightRecorder r = armed;
        if (r != null && (deadlineMissed || responseNanos > r.boundNanos)) {
            r.freeze(task, release, responseNanos);
        }
    }

    /**
     * A callback's end, on the real-time path, when its code used more CPU time than the cost the
     * admission analysis assumed: freezes the trace (once, like {@link #released}), so the events
     * inside the callback that used the CPU (an interrupt, a fault, the JVM's own work) are in it.
     * Allocation-free.
     *
     * @param component the component's name as ASCII bytes (made once, at deployment)
     * @param began the callback's start, {@link System#nanoTime} (the trace's clock)
     */
    public static void overran(byte[] component, long callback, long began, long cpuNanos, long costNanos) {
        FlightRecorder r = armed;
        if (r != null) {
            r.freeze(component, " callback ", callback, " began ", began, " cpu ", cpuNanos, costNanos);
        }
    }

    private void freeze(byte[] task, long release, long responseNanos) {
        freeze(task, " release ", release, "", Long.MIN_VALUE, " response ", responseNanos, boundNanos);
    }

    /** The marker line {@code <name><what><number>[<at><time>]<how> <us> us over <us> us}, then tracing off. */
    private void freeze(byte[] name, String what, long number, String at, long time, String how, long nanos, long overNanos) {
        if (!fired.compareAndSet(false, true)) {
            return;
        }
        int n = put(0, "rtdroid flight recorder: ");
        for (int i = 0; i < name.length && n < MARKER_BYTES - 128; i++) {
            byte b = name[i];
            buf.set(ValueLayout.JAVA_BYTE, n++, b > ' ' && b < 127 ? b : (byte) '?');
        }
        n = put(n, what);
        n = putLong(n, number);
        if (time != Long.MIN_VALUE) {
            n = put(n, at);
            n = putLong(n, time);
        }
        n = put(n, how);
        n = putLong(n, nanos / 1000);
        n = put(n, " us over ");
        n = putLong(n, overNanos / 1000);
        n = put(n, " us\n");
        PosixIo.writeNoErrno(markerFd, buf, 0, n);
        buf.set(ValueLayout.JAVA_BYTE, 0, (byte) '0');
        PosixIo.writeNoErrno(tracingOnFd, buf, 0, 1);
        frozenWhat = what;
        frozenRelease = number;
        frozenResponseNanos = nanos;
        frozenOverNanos = overNanos;
        frozenTask = name;  // last: frozen() reads it
    }

    /** A marker line {@code rtdroid flight recorder: <what> bound <us> us}, then {@code onOff} to tracing_on. */
    private void mark(String what, long bound, byte onOff) {
        int n = put(0, "rtdroid flight recorder: ");
        n = put(n, what);
        n = put(n, " bound ");
        n = putLong(n, bound / 1000);
        n = put(n, " us\n");
        PosixIo.writeNoErrno(markerFd, buf, 0, n);
        buf.set(ValueLayout.JAVA_BYTE, 0, onOff);
        PosixIo.writeNoErrno(tracingOnFd, buf, 0, 1);
    }

    private int put(int at, String ascii) {
        for (int i = 0; i < ascii.length(); i++) {
            buf.set(ValueLayout.JAVA_BYTE, at++, (byte) ascii.charAt(i));
        }
        return at;
    }

    private int putLong(int at, long v) {
        if (v < 0) {
            buf.set(ValueLayout.JAVA_BYTE, at++, (byte) '-');
            v = -v;
        }
        long div = 1;
        while (v / div >= 10) {
            div *= 10;
        }
        for (; div > 0; div /= 10) {
            buf.set(ValueLayout.JAVA_BYTE, at++, (byte) ('0' + (v / div) % 10));
        }
        return at;
    }

    /** The trace has been frozen (by the first release over the bound, or callback over its cost). */
    public boolean frozen() { return frozenTask != null; }

    public long boundNanos() { return boundNanos; }

    /** The event groups this kernel records. */
    public List<String> events() { return events; }

    /** What froze the trace, one line; null while it runs. */
    public String frozenAt() {
        byte[] t = frozenTask;
        if (t == null) {
            return null;
        }
        String name = new String(t, StandardCharsets.US_ASCII);
        return frozenWhat.equals(" release ")
                ? name + " release " + frozenRelease + ": response " + frozenResponseNanos / 1000
                        + " us over the bound of " + frozenOverNanos / 1000 + " us"
                : name + " callback " + frozenRelease + ": " + frozenResponseNanos / 1000
                        + " us of CPU time over its declared cost of " + frozenOverNanos / 1000 + " us";
    }

    /** Copies the ring's text ({@code trace}, read while tracing is off) to {@code out}. @return bytes copied */
    public long save(Path out) throws IOException {
        // Read to the end by hand: tracefs files say size 0, and the JDK's file-to-file transferTo
        // copies as many bytes as the size says (measured in the cell: an empty copy).
        byte[] chunk = new byte[64 * 1024];
        long total = 0;
        try (InputStream in = Files.newInputStream(tracefs.resolve("trace"));
             OutputStream o = Files.newOutputStream(out)) {
            for (int n; (n = in.read(chunk)) >= 0; total += n) {
                o.write(chunk, 0, n);
            }
        }
        return total;
    }

    private static void set(Path tracefs, String file, String value) throws IOException {
        try {
            Files.writeString(tracefs.resolve(file), value);
        } catch (IOException e) {
            throw new IOException("tracefs " + tracefs.resolve(file) + " refused '" + value + "': " + e.getMessage(), e);
        }
    }

    private static int open(Path file) throws IOException {
        int fd = PosixIo.open(file.toString(), PosixIo.O_WRONLY | PosixIo.O_CLOEXEC);
        if (fd < 0) {
            throw new IOException("cannot open " + file + ": errno " + -fd);
        }
        return fd;
    }
}
