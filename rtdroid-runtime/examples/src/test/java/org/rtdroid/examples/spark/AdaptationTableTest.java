package org.rtdroid.examples.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Table 1 and the seed's lookup examples; the table converging under a synthetic cost model. */
class AdaptationTableTest {
    private static final long US = 1_000L;

    @Test
    void theSeedsTableAfterFiftyFramesGivesTheSeedsLookups() {
        AdaptationTable t = new AdaptationTable();
        t.update(0, 15_211 * US, 16);   // (1,1)
        t.update(1, 7_373 * US, 18);    // (1,2)
        assertEquals(1, t.lookup(9_000 * US), "9000 us: (1,2)");
        assertEquals(0, t.lookup(18_000 * US), "18000 us: (1,1)");
        assertEquals(2, t.lookup(5_000 * US), "5000 us: (1,3), not observed yet, in the hope it fits");
        assertEquals(AdaptationTable.NONE, t.lookup(0), "no time: no analysis");
        assertEquals(1, AdaptationTable.dx(2));
        assertEquals(3, AdaptationTable.dy(2));
    }

    @Test
    void updateKeepsTheLongestAnalysisAndTheFrameItWasSeenOn() {
        AdaptationTable t = new AdaptationTable();
        assertFalse(t.observed(3));
        t.update(3, 900 * US, 4);
        t.update(3, 700 * US, 5);
        assertEquals(900 * US, t.longestNanos(3));
        assertEquals(4, t.frameOf(3));
        t.update(3, 1_000 * US, 9);
        assertEquals(1_000 * US, t.longestNanos(3));
        assertEquals(9, t.frameOf(3));
    }

    @Test
    void whenNothingKnownFitsTheCheapestIsTried() {
        AdaptationTable t = new AdaptationTable();
        for (int r = 0; r < AdaptationTable.ROWS; r++) {
            t.update(r, 10_000 * US, r);
        }
        assertEquals(AdaptationTable.ROWS - 1, t.lookup(1_000 * US));
    }

    /**
     * Analyses cost 12 ms / (dx × dy) with ±5 % deterministic variation; 7 ms are available per
     * frame. After exploring, the table settles on the best quality that fits, (1,2) at up to
     * 6.3 ms, and never picks a quality that overruns again.
     */
    @Test
    void theTableConvergesOnTheBestQualityThatFits() {
        AdaptationTable t = new AdaptationTable();
        long available = 7_000 * US;
        int overruns = 0;
        int lastOverrun = -1;
        int settled = -1;
        for (int frame = 0; frame < 200; frame++) {
            int r = t.lookup(available);
            long cost = 12_000 * US / (AdaptationTable.dx(r) * AdaptationTable.dy(r));
            cost += cost * ((frame * 37 % 11) - 5) / 100;
            if (cost > available) {
                overruns++;
                lastOverrun = frame;
            }
            t.update(r, cost, frame);
            if (frame >= 20) {
                assertEquals(1, r, "frame " + frame + ": (1,2) fits, (1,1) does not");
                settled = settled < 0 ? frame : settled;
            }
        }
        assertTrue(overruns <= 1, "only the exploration of (1,1) overran: " + overruns);
        assertTrue(lastOverrun < 20);
        assertEquals(20, settled);
    }
}
