package org.rtdroid.runtime.os;

import java.util.concurrent.CountDownLatch;

/**
 * The threads a service starts on a partitioned cell, each pinning itself to the CPU the cell's
 * partition places it on before it does any work, and the starter waiting until all of them are
 * placed. A thread running elsewhere than the analysis placed it would void the analysis, so a
 * refusal of the kernel fails the start with the errno that says why.
 */
public final class PartitionPins {
    private final String owner;
    private final CountDownLatch placed;
    private volatile String failure;

    /**
     * @param owner how the service names itself in the refusal ("alarm manager 'cell'")
     * @param threads how many threads call {@link #pinCurrentThread} once each
     */
    public PartitionPins(String owner, int threads) {
        this.owner = owner;
        this.placed = new CountDownLatch(threads);
    }

    /**
     * On the started thread: pins it to {@code cpu} (null: it stays where it is).
     *
     * @return false if the kernel refused ({@link #await} then says why): the thread must not run its work
     */
    public boolean pinCurrentThread(String thread, CpuSet cpu) {
        try {
            int err = cpu == null ? 0 : Linux.setAffinity(cpu);
            if (err != 0) {
                failure = owner + ": " + thread + " cannot be pinned to CPU " + cpu
                        + " as the cell's partition places it: sched_setaffinity: " + Errno.describe(err);
                return false;
            }
            return true;
        } finally {
            placed.countDown();
        }
    }

    /**
     * On the starter: waits until every thread has pinned itself (an interrupt ends the wait early
     * and is kept).
     *
     * @throws IllegalStateException a thread could not be pinned (the errno says why)
     */
    public void await() {
        try {
            placed.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (failure != null) {
            throw new IllegalStateException(failure);
        }
    }
}
