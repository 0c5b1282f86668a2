package org.rtdroid.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.rtdroid.examples.fall.FallDetector;
import org.rtdroid.runtime.memory.HeapMeter;
import org.rtdroid.runtime.sensor.sim.MotionTrace;

/**
 * The fall detector against recorded motion: the runtime's fall trace (rtdroid-runtime/traces,
 * SensorSimulator generate-fall) must give one fall, the no-fall trace (walking, sitting down
 * hard, a stumble: examples/traces/make_no_fall.py) none; the thresholds' edges; no allocation.
 */
class FallDetectorTest {
    static final Path FALL = Path.of("../traces/fall.trace");
    static final Path NO_FALL = Path.of("traces/no-fall.trace");
    static final float G = (float) FallDetector.G;

    static int feed(FallDetector d, MotionTrace t, long startNanos) {
        int reports = 0;
        for (int i = 0; i < t.size(); i++) {
            if (d.onSample(startNanos + t.offsetNanos(i), t.value(i, 0), t.value(i, 1), t.value(i, 2))) {
                reports++;
            }
        }
        return reports;
    }

    static double[] magnitudeRange(MotionTrace t) {
        double min = Double.MAX_VALUE;
        double max = 0;
        for (int i = 0; i < t.size(); i++) {
            double g = Math.sqrt(t.value(i, 0) * t.value(i, 0) + t.value(i, 1) * t.value(i, 1)
                    + t.value(i, 2) * t.value(i, 2)) / FallDetector.G;
            min = Math.min(min, g);
            max = Math.max(max, g);
        }
        return new double[] {min, max};
    }

    @Test
    void theFallTraceIsOneFallWithItsImpactAndFreeFall() throws Exception {
        MotionTrace t = MotionTrace.read(FALL);
        FallDetector d = new FallDetector();
        assertEquals(1, feed(d, t, 0));
        assertEquals(1, d.falls());
        // the trace: free fall from 2.0 s for 0.3 s near 0 g, impact peak ~4.3 g at ~2.32 s
        assertTrue(d.lastPeakG() > 3.5 && d.lastPeakG() < 5.0, "peak " + d.lastPeakG() + " g");
        assertTrue(d.lastFreeFallNanos() >= 250_000_000L && d.lastFreeFallNanos() <= 350_000_000L,
                "free fall " + d.lastFreeFallNanos() + " ns");
        assertTrue(d.lastImpactNanos() >= 2_250_000_000L && d.lastImpactNanos() <= 2_400_000_000L,
                "impact at " + d.lastImpactNanos() + " ns");
    }

    @Test
    void walkingSittingDownHardAndAStumbleAreNoFall() throws Exception {
        MotionTrace t = MotionTrace.read(NO_FALL);
        double[] range = magnitudeRange(t);
        // the trace does go through both thresholds, so no report is the detector's doing
        assertTrue(range[0] < FallDetector.FREE_FALL_G && range[1] > FallDetector.IMPACT_G,
                "|a| " + range[0] + ".." + range[1] + " g");
        FallDetector d = new FallDetector();
        assertEquals(0, feed(d, t, 0));
    }

    @Test
    void twoFallsFarEnoughApartAreTwoReports() throws Exception {
        MotionTrace t = MotionTrace.read(FALL);
        FallDetector d = new FallDetector();
        assertEquals(1, feed(d, t, 0));
        assertEquals(1, feed(d, t, t.durationNanos() + 1_000_000_000L));
        assertEquals(2, d.falls());
    }

    /** Free fall at 0.1 g for {@code fallMs}, back to 1 g for {@code gapMs}, one impact sample, then rest. */
    static int fall(long fallMs, long gapMs, float impactG) {
        FallDetector d = new FallDetector();
        long t = 0;
        long step = 10_000_000L;
        int reports = 0;
        for (int i = 0; i < 100; i++, t += step) {
            reports += d.onSample(t, 0, 0, G) ? 1 : 0;
        }
        for (long end = t + fallMs * 1_000_000L; t < end; t += step) {
            reports += d.onSample(t, 0, 0, 0.1f * G) ? 1 : 0;
        }
        for (long end = t + gapMs * 1_000_000L; t < end; t += step) {
            reports += d.onSample(t, 0, 0, G) ? 1 : 0;
        }
        reports += d.onSample(t, 0, 0, impactG * G) ? 1 : 0;
        for (int i = 0; i < 100; i++) {
            t += step;
            reports += d.onSample(t, 0, 0, G) ? 1 : 0;
        }
        return reports;
    }

    @Test
    void theThresholdsEdges() {
        assertEquals(1, fall(200, 0, 3.0f), "a fall");
        assertEquals(0, fall(140, 0, 3.0f), "free fall too short");
        assertEquals(0, fall(200, 0, 2.4f), "impact too weak");
        assertEquals(1, fall(200, 900, 3.0f), "impact within the second after the free fall");
        assertEquals(0, fall(200, 1100, 3.0f), "impact too late");
    }

    @Test
    void detectingAllocatesNothing() throws Exception {
        MotionTrace fall = MotionTrace.read(FALL);
        MotionTrace none = MotionTrace.read(NO_FALL);
        FallDetector d = new FallDetector();
        long[] t = {0};
        Runnable round = () -> {
            feed(d, fall, t[0]);
            t[0] += fall.durationNanos() + 3_000_000_000L;
            feed(d, none, t[0]);
            t[0] += none.durationNanos() + 3_000_000_000L;
        };
        for (int i = 0; i < 200; i++) {
            round.run();
        }
        long falls = d.falls();
        long bytes = -1;
        // Up to three windows, one must be clean (a one-off deoptimisation is not steady state).
        for (int w = 0; w < 3 && bytes != 0; w++) {
            long before = HeapMeter.currentThreadAllocatedBytes();
            for (int i = 0; i < 20; i++) {
                round.run();
            }
            bytes = HeapMeter.currentThreadAllocatedBytes() - before;
        }
        assertEquals(0, bytes, "bytes allocated by 20 rounds of a fall and a no-fall trace");
        assertTrue(d.falls() > falls, "the rounds detected falls");
    }
}
