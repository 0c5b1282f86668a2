package org.rtdroid.android.cell.control;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The latency summary's exact text, as `rtdroid android latency` and the Robot library read it. */
class PercentilesTest {
    @Test
    void noSamplesIsJustTheirCount() {
        assertEquals("{\"n\":0}", Percentiles.summaryJson(new long[0]));
        assertEquals("{\"n\":0}", Percentiles.summaryJson(new long[] {-1, -5}), "negative samples are not measured");
    }

    @Test
    void theSummaryIsNearestRankOverTheSortedSamples() {
        long[] samples = new long[100];
        for (int i = 0; i < samples.length; i++) {
            samples[i] = 100 - i; // 100..1, unsorted
        }
        assertEquals("{\"n\":100,\"min\":1,\"p50\":50,\"p90\":90,\"p99\":99,\"max\":100}", Percentiles.summaryJson(samples));
        assertEquals("{\"n\":2,\"min\":3,\"p50\":3,\"p90\":7,\"p99\":7,\"max\":7}",
                Percentiles.summaryJson(Percentiles.sum(new long[] {1, 5, -1}, new long[] {2, 2, 0})));
    }
}
