package org.rtdroid.logic.cochlear;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SignalPathTest {
    private static float[][] run(SignalPath p, int blocks, boolean cheap) {
        SpeechSource speech = new SpeechSource(SignalPath.SAMPLE_RATE_HZ, 0.01);
        float[] x = new float[SignalPath.SAMPLES_PER_BLOCK];
        float[][] levels = new float[blocks][];
        for (int k = 0; k < blocks; k++) {
            speech.next(x, x.length);
            p.process(x, 1.0, k % 3 == 0, cheap);
            assertTrue(SignalPath.sane(p.inputDbfs(), p.outputDbfs(), p.peak(), p.levels()), "block " + k);
            levels[k] = p.levels().clone();
        }
        return levels;
    }

    @Test
    void everyBlockIsSaneAndTheSameOnEveryRunAndAfterAWarmUp() {
        float[][] a = run(new SignalPath(new SignalPath.ArrayState()), 250, false);
        SignalPath warmed = new SignalPath(new SignalPath.ArrayState());
        warmed.warmUp(50);
        float[][] b = run(warmed, 250, false);
        for (int k = 0; k < a.length; k++) {
            assertArrayEquals(a[k], b[k], "block " + k);
        }
        float sum = 0;
        for (float v : a[a.length - 1]) {
            sum += v;
        }
        assertTrue(sum > 0.5f, "speech reaches the electrodes: " + sum);
    }

    @Test
    void theCheapBankFiltersTheEvenBandsAndCopiesThemToTheOddElectrodes() {
        float[][] cheap = run(new SignalPath(new SignalPath.ArrayState()), 50, true);
        for (float[] l : cheap) {
            for (int b = 1; b < SignalPath.BANDS; b += 2) {
                assertEquals(l[b - 1], l[b]);
            }
        }
    }

    @Test
    void silenceIsTheFloorAndNanIsNotSane() {
        assertEquals(SignalPath.MIN_DBFS, SignalPath.dbfs(0));
        float[] levels = new float[SignalPath.BANDS];
        levels[3] = Float.NaN;
        assertTrue(!SignalPath.sane(-20, -20, 0.5f, levels));
    }
}
