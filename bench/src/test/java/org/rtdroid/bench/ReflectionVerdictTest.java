package org.rtdroid.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The reflection benchmark's host verdict: a missed display goal is judged against its witness. */
class ReflectionVerdictTest {
    @Test
    void aGoalMetIsMetWhateverTheWitnessSaw() {
        assertEquals(Boolean.TRUE, ReflectionBench.verdict(4.9, 0.1));
        assertEquals(Boolean.TRUE, ReflectionBench.verdict(5.0, 300.0));
    }

    @Test
    void aGoalMissedIsTheEnginesWhenItsWitnessMetItAndUnjudgedWhenItsWitnessMissedItToo() {
        assertEquals(Boolean.FALSE, ReflectionBench.verdict(13.4, 2.0));
        assertEquals(Boolean.FALSE, ReflectionBench.verdict(13.4, 5.0));
        assertNull(ReflectionBench.verdict(13.4, 89.5));
    }

    @Test
    void theWitnessMeasuresTheWakeUpsSpreadAboutItsMedianAndNamesItsWorstStalls() {
        // wake-ups 30-33 us late and one 230 us late; spins within 40 ns but one of 1,284 us
        long[] sleep = {30_000, 31_000, 32_000, 33_000, 230_000};
        long[] spin = {10, 20, 1_284_000, 30, 40};
        ReflectionBench.Witnessed w = ReflectionBench.Witnessed.of(sleep, spin);
        assertEquals(198.0, w.sleepSpreadP99Us(), 1e-9);  // |230 - 32|: the median is 32 us
        assertEquals(1_284.0, w.spinP99Us(), 1e-9);
        assertEquals(1_284_000L, w.worstNanos());
        Map<String, Object> m = w.summary();
        assertEquals(1L, m.get("sleep_spread_over_5us"));
        assertEquals(1L, m.get("spin_over_5us"));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> worst = (List<Map<String, Object>>) m.get("stalls_over_5us_worst");
        assertEquals(2, worst.size());  // samples within 5 us are no stall
        assertEquals(ReflectionBench.CALIBRATE_FROM + 2L, worst.get(0).get("frame"));
        assertEquals("spin", worst.get(0).get("sample"));
        assertEquals("wake-up - median", worst.get(1).get("sample"));
    }

    @Test
    void aWakeUpSampleIsNamedByItsFrameWhenTheWitnessWakesSeveralTimesAFrame() {
        // two frames, three wake-ups each: the 5th wake-up (frame 1) stalled 1.5 ms
        long[] sleep = {30_000, 30_000, 30_000, 30_000, 1_530_000, 30_000};
        ReflectionBench.Witnessed w = ReflectionBench.Witnessed.of(sleep, new long[] {10, 10});
        Map<String, Object> m = w.summary();
        assertEquals(6, m.get("sleep_samples"));
        assertEquals(1L, m.get("samples_over_1ms"));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> worst = (List<Map<String, Object>>) m.get("stalls_over_5us_worst");
        assertEquals(ReflectionBench.CALIBRATE_FROM + 1L, worst.get(0).get("frame"));
        assertEquals(1_500.0, worst.get(0).get("us"));
    }

    @Test
    void anUnjudgedVerdictSaysWhy() {
        ReflectionBench.Witnessed w = ReflectionBench.Witnessed.of(new long[] {1_000, 1_000}, new long[] {90_000, 10});
        assertEquals("", w.unjudged(4.0, w.spinP99Us(), "floor"));
        assertEquals("; not judged: the platform alone missed it beside the engine (its floor p99 90.00 us > 5 us;"
                + " worst witnessed stall 90.0 us)", w.unjudged(13.4, w.spinP99Us(), "floor"));
    }
}
