package org.rtdroid.bridge.rtproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rtdroid.bridge.rtproxy.BudgetEnforcer.Action;
import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.os.RealtimePolicy;
import org.rtdroid.runtime.os.RealtimeThreads;

class BudgetEnforcerTest {
    private static final long MS = 1_000_000L;

    private static BudgetEnforcer enforcer(int tid, ProxyStats stats, List<String> log) {
        return new BudgetEnforcer(tid, RtProxy.PROXY_FIFO_PRIORITY, BudgetEnforcer.DEFAULT_INTERVAL_NANOS,
                BudgetEnforcer.DEFAULT_DEMOTE_NANOS, BudgetEnforcer.DEFAULT_RESTORE_NANOS, stats, log::add);
    }

    @Test
    void demotesOnlyAProxyThatHeldTheCpuAndRestoresItOnceItSleeps() {
        BudgetEnforcer e = enforcer(1, new ProxyStats(), new ArrayList<>());
        // Within its 20% budget (1 ms of 5): never demoted.
        assertEquals(Action.KEEP, e.decide(false, 1 * MS));
        assertEquals(Action.KEEP, e.decide(false, 4_499_999));
        assertEquals(Action.DEMOTE, e.decide(false, 4_500_000));
        assertEquals(Action.DEMOTE, e.decide(false, 5 * MS));
        // Demoted: kept there while it still runs much, restored once it sleeps again.
        assertEquals(Action.KEEP, e.decide(true, 4 * MS));
        assertEquals(Action.KEEP, e.decide(true, 2_500_001));
        assertEquals(Action.RESTORE, e.decide(true, 2_500_000));
        assertEquals(Action.RESTORE, e.decide(true, 0));
    }

    @Test
    void refusesThresholdsThatCannotWork() {
        ProxyStats stats = new ProxyStats();
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> new BudgetEnforcer(1, 1, 5 * MS, 6 * MS, 1 * MS, stats, s -> { }));
        assertTrue(bad.getMessage().contains("demote (6000000 ns) <= interval (5000000 ns)"), bad.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new BudgetEnforcer(1, 1, 5 * MS, 2 * MS, 2 * MS, stats, s -> { }));
        assertThrows(IllegalArgumentException.class, () -> new BudgetEnforcer(1, 1, 0, 0, 0, stats, s -> { }));
    }

    /**
     * The case it exists for: a SCHED_FIFO thread spins until a SCHED_OTHER thread of the same CPU
     * has done something. Alone, the kernel lets the SCHED_OTHER thread in only after ~0.95 s of
     * starvation, with the spinner still SCHED_FIFO. With the enforcer, the spinner is demoted and
     * the SCHED_OTHER thread runs while it is.
     */
    @Test
    void aFifoThreadSpinningOnAStarvedThreadIsDemotedUntilTheStarvedThreadHasRun() throws Exception {
        assumeTrue(RealtimeThreads.schedFifoPermitted(), "SCHED_FIFO is not permitted here (needs root or CAP_SYS_NICE)");
        int[] cpus = Linux.currentAffinity().toArray();
        assumeTrue(cpus.length >= 2, "needs 2 CPUs: one for the spinner, one for the test thread");
        CpuSet cpu = CpuSet.of(cpus[cpus.length - 1]);

        ProxyStats stats = new ProxyStats();
        List<String> log = new ArrayList<>();
        int[] spinnerTid = new int[1];
        Flags flags = new Flags();
        int[] policyAfterSleeping = new int[1];
        Thread spinner = RealtimeThreads.newThread("spinner", RealtimePolicy.fifo(RtProxy.PROXY_FIFO_PRIORITY).withCpus(cpu),
                a -> spinnerTid[0] = a.tid(), () -> {
                    flags.spinning = true;
                    long giveUp = System.nanoTime() + 5_000 * MS;
                    while (!flags.helped && System.nanoTime() < giveUp) {
                        Thread.onSpinWait();
                    }
                    // Sleeps like the proxy between passes: the enforcer gives SCHED_FIFO back.
                    long wake = Linux.monotonicNanos() + 50 * MS;
                    Linux.sleepUntilNanos(wake);
                    policyAfterSleeping[0] = Linux.currentPolicy();
                });
        Thread helper = RealtimeThreads.newThread("starved", RealtimePolicy.normal().withCpus(cpu), null, () -> {
            while (!flags.spinning) {
                Linux.sleepUntilNanos(Linux.monotonicNanos() + MS);
            }
            // Runs only when the spinner lets it: record what the spinner was then.
            flags.spinnerPolicyWhenHelped = policyOf(spinnerTid[0]);
            flags.helped = true;
        });
        spinner.start();
        while (spinnerTid[0] == 0) {
            Thread.sleep(1);
        }
        BudgetEnforcer e = enforcer(spinnerTid[0], stats, log);
        Thread watcher = RealtimeThreads.newThread("xcc-rt-budget", RealtimePolicy.fifo(RtProxy.PROXY_FIFO_PRIORITY + 1).withCpus(cpu), null, e);
        watcher.start();
        helper.start();
        spinner.join(10_000);
        helper.join(10_000);
        e.stop();
        watcher.join(10_000);

        assertTrue(flags.helped, "the SCHED_OTHER thread never ran");
        assertEquals(Linux.SCHED_OTHER, flags.spinnerPolicyWhenHelped,
                "the starved thread ran while the spinner was still policy " + flags.spinnerPolicyWhenHelped);
        assertTrue(stats.get(ProxyStats.BUDGET_DEMOTIONS) >= 1, "no demotion counted");
        assertTrue(log.get(0).contains("demoted to SCHED_OTHER"), log.toString());
        assertEquals(Linux.SCHED_FIFO, policyAfterSleeping[0], "not restored to SCHED_FIFO after it slept");
    }

    /** The scheduling policy of thread {@code tid} of this process, from /proc (field 41 of stat). */
    private static int policyOf(int tid) {
        try {
            String stat = Files.readString(Path.of("/proc/self/task/" + tid + "/stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Integer.parseInt(fields[38]);
        } catch (Exception ex) {
            return -1;
        }
    }

    private static final class Flags {
        volatile boolean spinning;
        volatile boolean helped;
        volatile int spinnerPolicyWhenHelped = -1;
    }
}
