package org.rtdroid.android.cell.os;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;

/**
 * SCHED_FIFO for the cell's real-time broadcast path, as Kalkov et al. (seed 001) give it on
 * their real-time Android: the dedicated delivery thread of real-time intents is a real-time
 * thread, and so is the UI thread while it runs their receivers. Without it the kernel shares the
 * cell's CPU evenly between the delivery path and every runnable low-priority sender (measured: a
 * real-time broadcast's p99 doubled with 100 parallel senders in the queue's own order).
 *
 * <p>Priorities stay at the bottom of the real-time range (1 and 2): within the Android cell's own
 * CPUs they only rank above its ordinary threads; the RT cell runs on other CPUs (or in another
 * machine). Setting one needs CAP_SYS_NICE (the cell runs as root on the boards); without it a
 * call returns EPERM and the queue reports that its real-time path runs at SCHED_OTHER. The
 * Android cell does not import the runtime: this is its own two calls, not the runtime's Linux class.
 * Allocation-free after a thread's first calls (its native buffers are per thread).
 */
public final class RealtimeScheduling {
    public static final int SCHED_OTHER = 0;
    public static final int SCHED_FIFO = 1;
    public static final int EPERM = 1;
    /** The real-time lane's delivery thread ({@code broadcast-rt}). */
    public static final int DELIVERY_PRIORITY = 2;
    /** The main looper while it runs real-time receivers or receivers a real-time broadcast waits for. */
    public static final int LOOPER_PRIORITY = 1;
    /**
     * "off" (the board file's {@code realtime_threads: false}, passed as {@code --realtime-threads
     * off}): no thread of the cell is set to SCHED_FIFO. Where the Android cell shares a kernel with
     * the RT cell (the host board), a SCHED_FIFO thread of the Android cell that keeps its CPU (a
     * long receiver; a killed cell's last thread tearing down its memory) also holds back the
     * kernel's per-CPU work there, which the RT cell's threads may wait for.
     */
    public static final String PROP_REALTIME_THREADS = "org.rtdroid.cell.realtimeThreads";
    /** What {@link #set} returns when the board keeps the cell's threads at SCHED_OTHER. */
    public static final int OFF_BY_BOARD = -2;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final long ERRNO_OFFSET = CAPTURE.byteOffset(MemoryLayout.PathElement.groupElement("errno"));
    // Called on the real-time path (the looper lifted and dropped around deliveries, lent a
    // priority by the delivery thread), so without errno capture: JDK 25 allocates 40 bytes per
    // capturing call until the JIT compiles its caller with escape analysis, which a path run a few
    // hundred times may never be. A failed call is repeated with capture to learn its errno (it
    // fails the same way again).
    private static final MethodHandle SCHED_SETSCHEDULER = downcall("sched_setscheduler",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
    private static final MethodHandle SCHED_SETSCHEDULER_ERRNO = downcall("sched_setscheduler",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS), Linker.Option.captureCallState("errno"));
    private static final MethodHandle GETTID = downcall("gettid", FunctionDescriptor.of(JAVA_INT));

    /** A thread's native buffers: the sched_param and the errno capture. */
    private static final class Scratch {
        final MemorySegment param;
        final MemorySegment capture;

        Scratch() {
            Arena arena = Arena.ofAuto(); // freed with the thread's Scratch
            param = arena.allocate(JAVA_INT);
            capture = arena.allocate(CAPTURE);
        }
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private RealtimeScheduling() {}

    private static MethodHandle downcall(String name, FunctionDescriptor fd, Linker.Option... options) {
        MemorySegment symbol = LINKER.defaultLookup().find(name).orElseThrow(
                () -> new UnsatisfiedLinkError("libc has no symbol " + name + " (the Android cell needs glibc >= 2.30)"));
        return LINKER.downcallHandle(symbol, fd, options);
    }

    /** The calling thread's kernel thread id. */
    public static int tid() {
        try {
            return (int) GETTID.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException("gettid failed", t);
        }
    }

    /**
     * sched_setscheduler(tid, policy, {priority}); tid 0 is the calling thread.
     *
     * @return 0, the errno value (EPERM without CAP_SYS_NICE, ESRCH once the thread has ended), or
     *     {@link #OFF_BY_BOARD} for a real-time policy when the board keeps the cell at SCHED_OTHER
     */
    public static int set(int tid, int policy, int priority) {
        if (policy != SCHED_OTHER && "off".equals(System.getProperty(PROP_REALTIME_THREADS))) {
            return OFF_BY_BOARD;
        }
        Scratch s = SCRATCH.get();
        s.param.set(JAVA_INT, 0, priority);
        try {
            if ((int) SCHED_SETSCHEDULER.invokeExact(tid, policy, s.param) == 0) {
                return 0;
            }
            int rc = (int) SCHED_SETSCHEDULER_ERRNO.invokeExact(s.capture, tid, policy, s.param);
            return rc == 0 ? 0 : s.capture.get(JAVA_INT, ERRNO_OFFSET);
        } catch (Throwable t) {
            throw new IllegalStateException("sched_setscheduler failed to run", t);
        }
    }

    /** A thread's policy and priority as the kernel reports them (/proc), e.g. "SCHED_FIFO 2"; for state and tests. */
    public static String describe(int tid) {
        try {
            String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/task/" + tid + "/stat"));
            // fields after the command name's closing parenthesis: 3 state ... 40 rt_priority 41 policy
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
            int rtPriority = Integer.parseInt(f[40 - 3]);
            int policy = Integer.parseInt(f[41 - 3]);
            return switch (policy) {
                case SCHED_OTHER -> "SCHED_OTHER";
                case SCHED_FIFO -> "SCHED_FIFO " + rtPriority;
                default -> "policy " + policy + " priority " + rtPriority;
            };
        } catch (java.io.IOException | RuntimeException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }
}
