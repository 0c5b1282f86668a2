package org.rtdroid.bridge.rtproxy;

import org.rtdroid.runtime.os.Linux;

/**
 * A thread that asks to wake every millisecond and records how late it woke: what the machine and
 * the JVM as a whole did to every thread of this test, as opposed to what the code under test did to
 * one of them. The JVM-level twin of the Robot suites' cyclictest witness
 * ({@code tests/robot/libraries/stallwitness.py}), with the same rules: consecutive late wake-ups
 * are one stall, as long as the worst of them, and a stall of {@code s} can cost a periodic task of
 * period {@code p} at most ceil(s / p) + 1 deadlines.
 *
 * <p>Being a Java thread, it is held up by a safepoint (a GC pause, a deoptimisation) as much as by
 * the machine. So a test that excuses misses by it claims only that the code under test did not
 * delay its real-time thread beyond what every thread of the JVM suffered; the Robot suites, whose
 * witness is native, hold the board to the stricter claim.
 */
final class StallWitness implements AutoCloseable {
    private static final long PERIOD_NANOS = 1_000_000L;
    private static final int MAX_STALLS = 4096;

    private final long minStallNanos;
    private final long[] stalls = new long[MAX_STALLS];
    private volatile int count;
    private volatile boolean running = true;
    private volatile long worstNanos;
    private volatile long wakeUps;
    private final Thread thread;

    private boolean inStall;

    /** Records only what {@link #onWakeUp} is told (no thread): for testing the witness's rules. */
    StallWitness(long minStallNanos) {
        this.minStallNanos = minStallNanos;
        this.thread = null;
    }

    private StallWitness(long minStallNanos, Thread thread) {
        this.minStallNanos = minStallNanos;
        this.thread = thread;
    }

    /**
     * Starts a witness thread.
     *
     * @param minStallNanos late wake-ups under this are noise, not a stall
     * @param fifoPriority the witness's SCHED_FIFO priority; it should sit above the real-time thread
     *     it vouches for (where real-time scheduling is not permitted it runs SCHED_OTHER and says so)
     */
    static StallWitness start(long minStallNanos, int fifoPriority) {
        StallWitness[] self = new StallWitness[1];
        Thread t = new Thread(() -> self[0].run(fifoPriority), "stall-witness");
        self[0] = new StallWitness(minStallNanos, t);
        t.setDaemon(true);
        t.start();
        return self[0];
    }

    private void run(int fifoPriority) {
        int rc = Linux.setScheduler(Linux.SCHED_FIFO, fifoPriority);
        if (rc != 0) {
            System.out.println("stall witness: SCHED_FIFO " + fifoPriority + " refused (errno " + rc + "), running SCHED_OTHER");
        }
        long next = Linux.monotonicNanos() + PERIOD_NANOS;
        while (running) {
            Linux.sleepUntilNanos(next);
            onWakeUp(Linux.monotonicNanos() - next);
            next += PERIOD_NANOS;
            long now = Linux.monotonicNanos();
            if (next < now) {
                // the wake-ups that fell due during a stall belong to that stall: skip them
                next = now - (now - next) % PERIOD_NANOS + PERIOD_NANOS;
            }
        }
    }

    /** One wake-up, {@code lateNanos} after it was due: late ones in a row are one stall, as long as the worst. */
    void onWakeUp(long lateNanos) {
        wakeUps++;
        if (lateNanos > worstNanos) {
            worstNanos = lateNanos;
        }
        if (lateNanos < minStallNanos) {
            inStall = false;
            return;
        }
        int n = count;
        if (inStall) {
            stalls[n - 1] = Math.max(stalls[n - 1], lateNanos);
        } else if (n < MAX_STALLS) {
            stalls[n] = lateNanos;
            count = n + 1;
            inStall = true;
        }
    }

    /** Wake-ups recorded so far. */
    long wakeUps() {
        return wakeUps;
    }

    /** The most deadline misses the witnessed stalls can cost one periodic task of this period. */
    long missesExplained(long periodNanos) {
        long explained = 0;
        for (int i = 0; i < count; i++) {
            explained += (stalls[i] + periodNanos - 1) / periodNanos + 1;
        }
        return explained;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("stall witness: worst wake-up ").append(worstNanos / 1000).append(" us, stalls of at least ")
                .append(minStallNanos / 1000).append(" us:");
        for (int i = 0; i < count; i++) {
            b.append(' ').append(stalls[i] / 1000).append(" us");
        }
        return count == 0 ? b.append(" none").toString() : b.toString();
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        if (thread != null) {
            thread.join(1000);
        }
    }
}
