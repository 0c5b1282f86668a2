package org.rtdroid.runtime.sensor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LatencyHistogramTest {
    @Test
    void everyValueLandsInABucketWhoseUpperEdgeIsAtMostAnEighthAbove() {
        SplittableRandom r = new SplittableRandom(7);
        for (int i = 0; i < 100_000; i++) {
            long v = r.nextLong(1L << r.nextInt(1, 43));
            long edge = LatencyHistogram.upperEdge(LatencyHistogram.index(v));
            assertTrue(edge >= v, v + " -> " + edge);
            assertTrue(edge <= v + v / 8 + 1, v + " -> " + edge);
        }
        for (long v = 0; v < 8; v++) {
            assertEquals(v, LatencyHistogram.upperEdge(LatencyHistogram.index(v)), "small values are exact");
        }
    }

    @Test
    void bucketsFollowOneAnotherWithoutGaps() {
        for (int i = 0; i < 335; i++) {
            long edge = LatencyHistogram.upperEdge(i);
            assertEquals(i, LatencyHistogram.index(edge), "bucket " + i + "'s upper edge " + edge);
            assertEquals(i + 1, LatencyHistogram.index(edge + 1), "the value after bucket " + i + "'s upper edge");
        }
    }

    @Test
    void percentilesAreUpperBoundsAndTheMaximumIsExact() {
        LatencyHistogram h = new LatencyHistogram();
        assertEquals(0, h.percentile(0.99));
        for (int i = 1; i <= 1000; i++) {
            h.record(i * 1_000L); // 1 us .. 1 ms
        }
        h.record(-5); // clocks that disagree: counted as 0
        assertEquals(1001, h.count());
        assertEquals(1_000_000L, h.max());
        long p50 = h.percentile(0.5);
        long p99 = h.percentile(0.99);
        assertTrue(p50 >= 500_000L && p50 <= 500_000L * 9 / 8, "p50 " + p50);
        assertTrue(p99 >= 990_000L && p99 <= 1_000_000L, "p99 " + p99);
        assertEquals(1_000_000L, h.percentile(1.0));
        assertThrows(IllegalArgumentException.class, () -> h.percentile(0));
        assertThrows(IllegalArgumentException.class, () -> h.percentile(1.5));
    }

    @Test
    void hugeValuesShareTheLastBucket() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(Long.MAX_VALUE);
        assertEquals(Long.MAX_VALUE, h.max());
        assertEquals(Long.MAX_VALUE, h.percentile(0.5));
    }
}
