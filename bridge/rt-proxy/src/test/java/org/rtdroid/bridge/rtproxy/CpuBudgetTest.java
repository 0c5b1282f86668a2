package org.rtdroid.bridge.rtproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The proxy's CPU budget on synthetic clocks: 200 µs per 1 ms, i.e. 20% of a CPU. */
class CpuBudgetTest {
    static final long MS = 1_000_000L;
    static final long US = 1_000L;

    @Test
    void shortPassesWithinTheBudgetNeverSleep() {
        CpuBudget b = new CpuBudget(MS, 200 * US);
        b.restart(0, 0);
        long now = 0;
        long cpu = 0;
        for (int i = 0; i < 1000; i++) { // 10 µs of CPU every 100 µs: 10%
            now += 100 * US;
            cpu += 10 * US;
            assertEquals(0, b.charge(now, cpu), "pass " + i);
        }
    }

    @Test
    void aBusyThreadSleepsOffTheRestOfItsWindow() {
        CpuBudget b = new CpuBudget(MS, 200 * US);
        b.restart(0, 0);
        assertEquals(0, b.charge(150 * US, 150 * US));
        // 200 µs used 200 µs into the window: sleep until the window's end
        assertEquals(800 * US, b.charge(200 * US, 200 * US));
    }

    @Test
    void onePassLongerThanTheWindowIsChargedInFull() {
        // The bug this class replaced: a 1.2 ms pass crossed the window's end and reset it uncharged.
        CpuBudget b = new CpuBudget(MS, 200 * US);
        b.restart(0, 0);
        long sleep = b.charge(1_200 * US, 1_200 * US);
        // 1.2 ms of CPU at a 20% share needs a 6 ms window: sleep 4.8 ms
        assertEquals(4_800 * US, sleep);
        long now = 1_200 * US + sleep;
        b.restart(now, 1_200 * US);
        assertEquals(0, b.charge(now + 100 * US, 1_250 * US));
    }

    @Test
    void aLongWindowWithLittleCpuInItIsWithinTheShare() {
        CpuBudget b = new CpuBudget(MS, 200 * US);
        b.restart(0, 0);
        // preempted for 5 ms, used 300 µs: 6% of the elapsed time
        assertEquals(0, b.charge(5 * MS, 300 * US));
        // and the window restarted there: 250 µs more within 100 µs is over the budget again
        assertTrue(b.charge(5 * MS + 250 * US, 550 * US) > 0);
    }

    @Test
    void overTheLongRunTheShareIsBounded() {
        // A thread that is always busy: each pass 70 µs of CPU and wall time, sleeping when told.
        CpuBudget b = new CpuBudget(MS, 200 * US);
        long now = 0;
        long cpu = 0;
        b.restart(now, cpu);
        long busy = 0;
        while (now < 1_000 * MS) {
            now += 70 * US;
            cpu += 70 * US;
            busy += 70 * US;
            long sleep = b.charge(now, cpu);
            if (sleep > 0) {
                now += sleep;
                b.restart(now, cpu);
            }
        }
        double share = 100.0 * busy / now;
        assertTrue(share <= 20.5 && share >= 15, "share " + share + "%");
    }

    @Test
    void nonsenseBudgetsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new CpuBudget(MS, 2 * MS));
        assertThrows(IllegalArgumentException.class, () -> new CpuBudget(0, 0));
    }
}
