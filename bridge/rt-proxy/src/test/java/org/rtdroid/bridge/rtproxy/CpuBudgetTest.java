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
        CpuBudget b = new CpuBudget(MS, 200 * US, 10 * MS);
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
        CpuBudget b = new CpuBudget(MS, 200 * US, 10 * MS);
        b.restart(0, 0);
        assertEquals(0, b.charge(150 * US, 150 * US));
        // 200 µs used 200 µs into the window: sleep until the window's end
        assertEquals(800 * US, b.charge(200 * US, 200 * US));
    }

    @Test
    void onePassLongerThanTheWindowIsChargedInFull() {
        // The bug this class replaced: a 1.2 ms pass crossed the window's end and reset it uncharged.
        CpuBudget b = new CpuBudget(MS, 200 * US, 10 * MS);
        b.restart(0, 0);
        long sleep = b.charge(1_200 * US, 1_200 * US);
        // 1.2 ms of CPU at a 20% share needs a 6 ms window: sleep 4.8 ms
        assertEquals(4_800 * US, sleep);
        long now = 1_200 * US + sleep;
        assertEquals(0, b.charge(now, 1_200 * US)); // paid: the window closes
        assertEquals(0, b.charge(now + 100 * US, 1_250 * US));
    }

    @Test
    void aLongWindowWithLittleCpuInItIsWithinTheShare() {
        CpuBudget b = new CpuBudget(MS, 200 * US, 10 * MS);
        b.restart(0, 0);
        // preempted for 5 ms, used 300 µs: 6% of the elapsed time
        assertEquals(0, b.charge(5 * MS, 300 * US));
        // and the window restarted there: 250 µs more within 100 µs is over the budget again
        assertTrue(b.charge(5 * MS + 250 * US, 550 * US) > 0);
    }

    @Test
    void overTheLongRunTheShareIsBounded() {
        // A thread that is always busy: each pass 70 µs of CPU and wall time, sleeping when told.
        CpuBudget b = new CpuBudget(MS, 200 * US, 10 * MS);
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
                b.charge(now, cpu);
            }
        }
        double share = 100.0 * busy / now;
        assertTrue(share <= 20.5 && share >= 15, "share " + share + "%");
    }

    @Test
    void aVeryLongPassIsPaidOffInInstalmentsWithPassesBetween() {
        // A cold pass under emulation: 300 ms of CPU. At 20% it owes 1.2 s of sleep, paid in pauses
        // of at most 10 ms with a pass (here 50 µs) after each, so the thread still heartbeats.
        CpuBudget b = new CpuBudget(MS, 200 * US, 10 * MS);
        b.restart(0, 0);
        long now = 300 * MS;
        long cpu = 300 * MS;
        int pauses = 0;
        long pause;
        while ((pause = b.charge(now, cpu)) > 0) {
            assertTrue(pause <= 10 * MS, "pause " + pause);
            pauses++;
            now += pause;
            b.charge(now, cpu);
            now += 50 * US;
            cpu += 50 * US;
        }
        assertTrue(pauses >= 120 && pauses <= 130, pauses + " pauses");
        // in all, the window that held the long pass is within the share
        assertTrue(cpu * 5 <= now + 10 * MS, "cpu " + cpu + " ns in " + now + " ns");
        assertEquals(0, b.debtNanos());
    }

    @Test
    void nonsenseBudgetsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new CpuBudget(MS, 2 * MS, 10 * MS));
        assertThrows(IllegalArgumentException.class, () -> new CpuBudget(0, 0, MS));
        // a pause shorter than the rest of a busy window could never pay for it
        assertThrows(IllegalArgumentException.class, () -> new CpuBudget(MS, 200 * US, 500 * US));
    }
}
