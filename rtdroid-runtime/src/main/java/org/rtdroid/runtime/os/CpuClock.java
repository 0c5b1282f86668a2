package org.rtdroid.runtime.os;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The calling thread's CPU time ({@code CLOCK_THREAD_CPUTIME_ID}, through HotSpot's
 * {@link ThreadMXBean#getCurrentThreadCpuTime}, which allocates nothing): what a release or a
 * callback actually executed, as opposed to its response time, which also holds the time it was
 * preempted or not yet running. Compared with the declared WCET, it says whether the cost the
 * admission analysis assumed holds on this board. In an emulated cell it runs in the cell's
 * virtual time, like every other clock of the guest.
 */
public final class CpuClock {
    private static final ThreadMXBean BEAN = init();

    private CpuClock() {}

    private static ThreadMXBean init() {
        ThreadMXBean b = ManagementFactory.getThreadMXBean();
        if (!b.isCurrentThreadCpuTimeSupported()) {
            return null;
        }
        if (!b.isThreadCpuTimeEnabled()) {
            b.setThreadCpuTimeEnabled(true);
        }
        return b;
    }

    /** @return whether this JVM can read a thread's CPU time */
    public static boolean supported() { return BEAN != null; }

    /** Nanoseconds of CPU the calling thread has used since it started (-1 if unsupported). */
    public static long currentThreadNanos() {
        return BEAN == null ? -1 : BEAN.getCurrentThreadCpuTime();
    }
}
