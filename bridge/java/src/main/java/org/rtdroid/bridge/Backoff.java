package org.rtdroid.bridge;

import java.util.concurrent.locks.LockSupport;

/**
 * Adaptive idle strategy for a polling reader (region-spec.md, "Waiting"): spin for
 * {@code spins} empty polls, then yield for {@code yields} polls, then sleep, doubling from
 * {@code minSleepNanos} to {@code maxSleepNanos}. {@link #reset()} after any frame. Allocation-free.
 */
public final class Backoff {
    private final int spins;
    private final int yields;
    private final long minSleepNanos;
    private final long maxSleepNanos;
    private int idlePolls;
    private long sleepNanos;

    public Backoff(int spins, int yields, long minSleepNanos, long maxSleepNanos) {
        if (spins < 0 || yields < 0) {
            throw new IllegalArgumentException("spins " + spins + " and yields " + yields + " must be >= 0");
        }
        if (minSleepNanos < 1 || maxSleepNanos < minSleepNanos) {
            throw new IllegalArgumentException("sleep range [" + minSleepNanos + ", " + maxSleepNanos
                    + "] ns must satisfy 1 <= minSleepNanos <= maxSleepNanos");
        }
        this.spins = spins;
        this.yields = yields;
        this.minSleepNanos = minSleepNanos;
        this.maxSleepNanos = maxSleepNanos;
        this.sleepNanos = minSleepNanos;
    }

    /** Busy polling only: what a pinned benchmark peer uses. */
    public static Backoff busySpin() {
        return new Backoff(Integer.MAX_VALUE, 0, 1, 1);
    }

    /** Call after an empty poll. */
    public void idle() {
        if (idlePolls < spins) {
            if (spins != Integer.MAX_VALUE) {
                idlePolls++; // a busy-spin backoff never leaves spinning
            }
            Thread.onSpinWait();
        } else if (idlePolls - spins < yields) {
            idlePolls++;
            Thread.yield();
        } else {
            LockSupport.parkNanos(sleepNanos);
            sleepNanos = Math.min(maxSleepNanos, sleepNanos * 2);
        }
    }

    /** Call after a frame: back to spinning. */
    public void reset() {
        idlePolls = 0;
        sleepNanos = minSleepNanos;
    }

    /** The sleep the next sleeping idle() would take (tests, diagnostics). */
    public long currentSleepNanos() {
        return sleepNanos;
    }
}
