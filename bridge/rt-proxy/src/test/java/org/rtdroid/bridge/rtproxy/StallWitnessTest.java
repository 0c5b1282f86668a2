package org.rtdroid.bridge.rtproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The rules by which {@link StallWitness} excuses deadline misses (the same as the Robot suites' witness). */
class StallWitnessTest {
    static final long MS = 1_000_000L;

    @Test
    void lateWakeUpsInARowAreOneStallAsLongAsTheWorst() {
        StallWitness w = new StallWitness(5 * MS);
        for (long late : new long[] {0, 12 * MS, 11 * MS, 6 * MS, 0, 1 * MS, 6 * MS, 0}) {
            w.onWakeUp(late);
        }
        // a 12 ms stall can cost a 10 ms task ceil(12/10) + 1 = 3 deadlines, a 6 ms one 1 + 1 = 2
        assertEquals(5, w.missesExplained(10 * MS), w.toString());
        assertTrue(w.toString().contains("12000 us 6000 us"), w.toString());
    }

    @Test
    void lateWakeUpsUnderTheThresholdExcuseNothing() {
        StallWitness w = new StallWitness(5 * MS);
        for (int i = 0; i < 100; i++) {
            w.onWakeUp(4 * MS);
        }
        assertEquals(0, w.missesExplained(10 * MS));
        assertTrue(w.toString().contains("worst wake-up 4000 us"), w.toString());
    }

    @Test
    void aStartedWitnessWakesAndStops() throws Exception {
        StallWitness w = StallWitness.start(5 * MS, 90);
        try (w) {
            long end = System.nanoTime() + 5_000 * MS;
            while (w.wakeUps() < 10 && System.nanoTime() < end) {
                Thread.sleep(5);
            }
        }
        long after = w.wakeUps();
        assertTrue(after >= 10, "wake-ups " + after);
        Thread.sleep(20);
        assertEquals(after, w.wakeUps(), "the witness stopped on close");
    }
}
