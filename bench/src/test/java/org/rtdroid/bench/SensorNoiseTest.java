package org.rtdroid.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.os.CpuSet;

/** The sensor benchmark's noise: what each kind starts, and that it stops when told. */
class SensorNoiseTest {
    private final CpuSet cpu = CpuSet.of(Runtime.getRuntime().availableProcessors() - 1);

    @Test
    void theMemoryWorkloadRunsOnePeriodAtATimeAndStops() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        LongAdder rounds = new LongAdder();
        LongAdder overruns = new LongAdder();
        List<Thread> threads = SensorBench.startNoise("memory", 2, cpu, stop, rounds, overruns);
        assertEquals(2, threads.size());
        // Each thread runs one round per 200 ms period (the second starts half a period in): in
        // 400 ms at most 3 rounds each, fewer when the machine is slow, never more.
        Thread.sleep(400);
        long early = rounds.sum();
        // A liveness cap, not a timing goal: two rounds are tens of ms of work.
        long until = System.nanoTime() + 60_000_000_000L;
        while (rounds.sum() < 2 && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        stop.set(true);
        for (Thread t : threads) {
            t.join(60_000);
            assertFalse(t.isAlive(), t.getName() + " did not stop");
        }
        assertTrue(early <= 6, early + " rounds in 400 ms: not one per period");
        assertTrue(rounds.sum() >= 2, "rounds " + rounds.sum());
    }

    @Test
    void theSeedsComputationWorkloadIsPeriodicAndStops() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = SensorBench.startNoise("computation", 3, cpu, stop, new LongAdder(), new LongAdder());
        assertEquals(3, threads.size());
        Thread.sleep(100);
        stop.set(true);
        for (Thread t : threads) {
            t.join(60_000);
            assertFalse(t.isAlive(), t.getName() + " did not stop");
        }
        assertTrue(SensorBench.computationSink > 1.0, "no multiplication ran");
    }

    @Test
    void listenersAreNotThreadsAndAnUnknownKindIsRefusedByName() {
        AtomicBoolean stop = new AtomicBoolean(true);
        assertTrue(SensorBench.startNoise("listeners", 5, cpu, stop, new LongAdder(), new LongAdder()).isEmpty());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SensorBench.startNoise("disk", 1, cpu, stop, new LongAdder(), new LongAdder()));
        assertTrue(e.getMessage().contains("disk"), e.getMessage());
    }

    @Test
    void theGoalsKindsAreTheDissertationsAndTheFloodIsOnlyReported() {
        assertEquals(List.of("memory", "computation", "listeners"), List.of(SensorBench.NOISE));
        assertEquals(List.of("memory", "computation", "listeners", "computation-spin", "allocation-flood"), SensorBench.allNoise());
    }
}
