package org.rtdroid.runtime.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The classic priority-inversion scenario, run for real on one CPU under SCHED_FIFO, once with the
 * {@link PiMutex} and once with a JVM monitor (the baseline, same shape):
 *
 * <ol>
 *   <li>low (FIFO 10) takes the lock and waits, holding it, until high announces itself;
 *   <li>medium (FIFO 20) starts spinning (at most {@link #MEDIUM_SPIN_NANOS}), so low cannot run;
 *   <li>high (FIFO 30) announces itself and blocks on the lock.
 * </ol>
 *
 * With priority inheritance the kernel boosts low to 30, low runs ahead of medium, finishes its
 * {@link #HOLD_CPU_NANOS} of work and hands the lock to high while medium is still spinning; low
 * reads its own effective priority from /proc while it holds the lock (30: boosted). With the JVM
 * monitor low stays at 10 and high gets the lock only after medium has finished. The assertions
 * are on that order of events and on the priority the kernel reports, not on durations.
 */
class PriorityInheritanceTest {
    static final int LOW = 10;
    static final int MEDIUM = 20;
    static final int HIGH = 30;
    /** Medium gives up after this long (well under the kernel's 950 ms real-time budget per second). */
    static final long MEDIUM_SPIN_NANOS = 600_000_000L;
    /** CPU time low needs, holding the lock, once high has announced itself. */
    static final long HOLD_CPU_NANOS = 20_000_000L;
    static final long TIMEOUT_NANOS = 5_000_000_000L;

    /** Runs {@code body} inside the lock under test. */
    interface Section {
        void run(Runnable body);
    }

    /** What happened, as seen by the three threads. */
    static final class Run {
        volatile boolean lowLocked;
        volatile boolean mediumSpinning;
        volatile boolean highTrying;
        volatile boolean highAcquired;
        volatile boolean mediumDone;
        volatile boolean mediumDoneWhenHighAcquired;
        volatile int lowPriorityWhileHolding = -1;
        volatile long mediumSpunNanos;
        volatile String failure;

        @Override
        public String toString() {
            return "lowPriorityWhileHolding=" + lowPriorityWhileHolding + ", mediumDoneWhenHighAcquired="
                    + mediumDoneWhenHighAcquired + ", highAcquired=" + highAcquired + ", mediumSpunMs="
                    + mediumSpunNanos / 1_000_000 + (failure == null ? "" : ", failure=" + failure);
        }
    }

    @Test
    void piMutexBoostsTheHolderAheadOfAMiddlePrioritySpinner() throws Exception {
        PiMutex m = new PiMutex("inversion");
        Run r = invert(body -> {
            m.lock();
            try {
                body.run();
            } finally {
                m.unlock();
            }
        });
        System.out.println("priority inversion, PiMutex: " + r);
        assertTrue(r.highAcquired, r.toString());
        assertEquals(HIGH, r.lowPriorityWhileHolding, "low must run boosted to high's priority: " + r);
        assertFalse(r.mediumDoneWhenHighAcquired, "high must get the lock while medium still spins: " + r);
    }

    @Test
    void jvmMonitorLetsTheMiddlePrioritySpinnerDelayTheHighThread() throws Exception {
        Object monitor = new Object();
        Run r = invert(body -> {
            synchronized (monitor) {
                body.run();
            }
        });
        System.out.println("priority inversion, JVM monitor (baseline): " + r);
        assertTrue(r.highAcquired, r.toString());
        assertEquals(LOW, r.lowPriorityWhileHolding, "a JVM monitor does not boost: " + r);
        assertTrue(r.mediumDoneWhenHighAcquired, "high waits for medium to finish (unbounded inversion): " + r);
    }

    private static Run invert(Section section) throws Exception {
        assumeTrue(RealtimeThreads.schedFifoPermitted(),
                "SCHED_FIFO is not permitted here (needs root or CAP_SYS_NICE): priority inheritance cannot be shown");
        CpuSet allowed = Linux.currentAffinity();
        assumeTrue(allowed.size() >= 2, "needs 2 CPUs (one for the three FIFO threads, one for the test thread); "
                + "allowed: " + allowed);
        int[] cpus = allowed.toArray();
        CpuSet cpu = CpuSet.of(cpus[cpus.length - 1]);
        Run r = new Run();
        effectivePriority(); // loads the file-reading classes now, not inside the scenario

        Thread low = start("pi-low", LOW, cpu, r, () -> section.run(() -> {
            r.lowLocked = true;
            long giveUp = System.nanoTime() + TIMEOUT_NANOS;
            while (!r.highTrying && System.nanoTime() < giveUp) {
                Thread.onSpinWait();
            }
            // Here low runs only if it is boosted (PI) or medium has finished (monitor).
            r.lowPriorityWhileHolding = effectivePriority();
            long cpu0 = Linux.threadCpuNanos();
            while (Linux.threadCpuNanos() - cpu0 < HOLD_CPU_NANOS) {
                Thread.onSpinWait();
            }
        }));
        await(() -> r.lowLocked || !low.isAlive(), "low locked");

        Thread medium = start("pi-medium", MEDIUM, cpu, r, () -> {
            long start = System.nanoTime();
            r.mediumSpinning = true;
            long now = start;
            while (!r.highAcquired && now - start < MEDIUM_SPIN_NANOS) {
                now = System.nanoTime();
            }
            r.mediumSpunNanos = now - start;
            r.mediumDone = true;
        });
        await(() -> r.mediumSpinning || !medium.isAlive(), "medium spinning");

        Thread high = start("pi-high", HIGH, cpu, r, () -> {
            r.highTrying = true;
            section.run(() -> {
                r.mediumDoneWhenHighAcquired = r.mediumDone;
                r.highAcquired = true;
            });
        });
        for (Thread t : new Thread[] {high, medium, low}) {
            t.join(TIMEOUT_NANOS / 1_000_000);
            assertFalse(t.isAlive(), t.getName() + " still running: " + r);
        }
        if (r.failure != null) {
            throw new AssertionError(r.failure);
        }
        return r;
    }

    private static Thread start(String name, int priority, CpuSet cpu, Run r, Runnable body) {
        return RealtimeThreads.start(name, RealtimePolicy.fifo(priority).withCpus(cpu), a -> {
            if (!a.isFifo() || a.priority() != priority || !a.cpus().equals(cpu)) {
                r.failure = name + " did not get its policy: " + a;
            }
        }, body);
    }

    /**
     * The calling thread's effective real-time priority as the kernel schedules it (including a
     * priority-inheritance boost, which sched_getparam does not show): field 18 of
     * /proc/thread-self/stat is {@code -1 - rt_priority} for a real-time task.
     */
    static int effectivePriority() {
        try {
            String stat = Files.readString(Path.of("/proc/thread-self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return -1 - Integer.parseInt(f[15]); // f[0] is field 3 (state)
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("cannot read /proc/thread-self/stat", e);
        }
    }

    private static void await(java.util.function.BooleanSupplier cond, String what) throws InterruptedException {
        long giveUp = System.nanoTime() + TIMEOUT_NANOS;
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > giveUp) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.sleep(1);
        }
    }

    @Test
    void effectivePriorityOfTheTestThreadIsNotRealtime() {
        // SCHED_OTHER at nice 0: priority field 20, i.e. "-21" here, never a real-time 1..99.
        int p = effectivePriority();
        assertTrue(p < 0, "SCHED_OTHER thread read as real-time priority " + p);
    }
}
