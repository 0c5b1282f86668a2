package org.rtdroid.runtime.reflection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Listing 6's tactic against a synthetic engine whose wake-up comes a fixed offset (plus a small
 * deterministic jitter) after the instant it asked for: the anticipation must converge on the offset.
 */
class FeedbackCalibrationTest {
    static final class Display extends Action {
        Display() { super(4, "display"); }

        @Override
        public void perform() {}
    }

    /** An engine model: asks to wake at planned - anticipation, wakes offset later. */
    static final class SyntheticEngine implements Calibratable {
        long anticipation;

        @Override
        public long anticipationNanos() { return anticipation; }

        @Override
        public void anticipationNanos(long nanos) { anticipation = nanos; }

        /** Runs {@code a} as an engine with wake-up latency {@code offset} would. */
        void run(Action a, long planned, long offset) {
            a.interval.plan(planned, planned + 1_000);
            a.interval.actualBeginNanos = planned - anticipation + offset;
            a.interval.actualEndNanos = a.interval.actualBeginNanos + 500;
            a.clobber = false;
        }
    }

    @Test
    void theAnticipationConvergesOnASyntheticWakeUpOffset() {
        SyntheticEngine engine = new SyntheticEngine();
        FeedbackCalibration cal = new FeedbackCalibration(4, 1_000_000);
        Display d = new Display();
        long offset = 54_000;  // the seed's 52-57 µs before calibration
        long planned = 1_000_000_000L;
        for (int frame = 1; frame <= 25; frame++) {  // off: the error stays at the offset
            engine.run(d, planned += 40_000_000L, offset);
            cal.onExecuted(d, true, engine);
            assertEquals(offset, d.interval().beginErrorNanos());
        }
        cal.enabled(true);
        int settledAt = -1;
        for (int frame = 26; frame <= 60; frame++) {
            long jitter = (frame * 7919L % 7) - 3;  // -3..+3 ns, deterministic
            engine.run(d, planned += 40_000_000L, offset + jitter);
            long error = d.interval().beginErrorNanos();
            cal.onExecuted(d, true, engine);
            if (settledAt < 0 && Math.abs(error) <= 20) {
                settledAt = frame;
            }
            if (settledAt > 0) {
                assertTrue(Math.abs(error) <= 20, "frame " + frame + ": error " + error + " ns after settling");
            }
        }
        assertTrue(settledAt > 0 && settledAt <= 26 + 16, "settled within 16 frames of switching on: " + settledAt);
        assertTrue(Math.abs(engine.anticipation - offset) <= 10, "anticipation " + engine.anticipation);
    }

    @Test
    void clobberedActionsOnesNotSleptForAndOtherClassesAreIgnoredAndOneStepIsClamped() {
        SyntheticEngine engine = new SyntheticEngine();
        FeedbackCalibration cal = new FeedbackCalibration(4, 10_000);
        cal.enabled(true);
        Display d = new Display();
        engine.run(d, 1_000_000, 2_000_000);
        d.clobber = true;
        cal.onExecuted(d, true, engine);
        assertEquals(0, engine.anticipation, "clobbered: its error is the previous action's, not the wake-up's");
        d.clobber = false;
        cal.onExecuted(d, false, engine);
        assertEquals(0, engine.anticipation, "already due when the engine looked: no wake-up to calibrate");
        Action other = new Action(9, "analyse") {
            @Override
            public void perform() {}
        };
        engine.run(other, 1_000_000, 50_000);
        cal.onExecuted(other, true, engine);
        assertEquals(0, engine.anticipation, "another class");
        cal.onExecuted(d, true, engine);  // a 2 ms preemption
        assertEquals(0, engine.anticipation, "one outlier alone moves nothing");
        engine.run(d, 50_000_000, 2_000_000);
        cal.onExecuted(d, true, engine);  // and another
        assertEquals(10_000, engine.anticipation, "two outliers in a row move it by the clamp only");
        assertEquals(1, cal.corrections());
    }

    /**
     * Listing 6 calibrates for drift, not spikes: once the anticipation has settled on the wake-up
     * offset, one late wake-up (an interrupt landing on the instant), or one on each of two frames
     * in a row (as the reflection bench saw: +9.7 then +15.3 us), must not make the next displays
     * start early, and a lasting change of the offset must still be followed.
     */
    @Test
    void aSingleLateWakeUpMovesNothingAndALastingChangeIsFollowed() {
        SyntheticEngine engine = new SyntheticEngine();
        FeedbackCalibration cal = new FeedbackCalibration(4, 20_000);  // the spark app's clamp
        cal.enabled(true);
        Display d = new Display();
        long offset = 30_000;
        long planned = 1_000_000_000L;
        for (int frame = 0; frame < 40; frame++) {
            engine.run(d, planned += 40_000_000L, offset);
            cal.onExecuted(d, true, engine);
        }
        assertTrue(Math.abs(engine.anticipation - offset) <= 1, "settled: anticipation " + engine.anticipation);
        long settled = engine.anticipation;
        for (long[] spikes : new long[][] {{60_000}, {250_000}, {5_000_000}, {9_700, 15_300}, {40_000, 70_000}}) {
            for (long spike : spikes) {  // one late wake-up, or one on each of two frames in a row
                engine.run(d, planned += 40_000_000L, offset + spike);
                cal.onExecuted(d, true, engine);
            }
            long spike = spikes[spikes.length - 1];
            for (int frame = 0; frame < 10; frame++) {
                engine.run(d, planned += 40_000_000L, offset);
                long error = d.interval().beginErrorNanos();
                cal.onExecuted(d, true, engine);
                assertTrue(error >= -5_000, "a " + spike / 1000 + " us spike, then frame " + frame + " started "
                        + -error / 1000.0 + " us early");
            }
            assertEquals(settled, engine.anticipation, "after " + java.util.Arrays.toString(spikes) + " ns spikes");
        }
        long drifted = offset + 12_000;  // the platform's latency changes for good
        for (int frame = 0; frame < 20; frame++) {
            engine.run(d, planned += 40_000_000L, drifted);
            cal.onExecuted(d, true, engine);
        }
        assertTrue(Math.abs(engine.anticipation - drifted) <= 1, "followed the drift: anticipation " + engine.anticipation);
    }
}
