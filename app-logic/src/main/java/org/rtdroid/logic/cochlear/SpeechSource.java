package org.rtdroid.logic.cochlear;

/**
 * A deterministic, speech-like test signal standing in for the microphone: a glottal pulse train
 * (fundamental 95-165 Hz with intonation and vibrato) shaped by three formants that move between
 * vowel targets every syllable (4 per second), gated into phrases (1.6 s speech, 0.4 s pause), plus
 * white noise at about -40 dBFS. Same samples on every run. Allocation-free after construction.
 */
public final class SpeechSource {
    /** Formant frequencies (Hz) of the vowels a, i, u, e, o (Peterson and Barney averages). */
    private static final double[][] VOWELS = {
        {730, 1090, 2440}, {270, 2290, 3010}, {300, 870, 2240}, {530, 1840, 2480}, {570, 840, 2410},
    };
    private static final double[] BANDWIDTHS = {90, 110, 170};
    private static final int MAX_HARMONICS = 40;
    private static final double TWO_PI = 2 * Math.PI;

    private final double sampleRate;
    private final double[] amplitudes = new double[MAX_HARMONICS + 1];
    private long sample;
    private double f0Phase;
    private int noiseState = 0x2545F491;
    private final double noiseAmplitude;

    public SpeechSource(double sampleRate, double noiseAmplitude) {
        this.sampleRate = sampleRate;
        this.noiseAmplitude = noiseAmplitude;
    }

    /** Fills {@code out[0..n)} with the next n samples in [-1, 1]. */
    public void next(float[] out, int n) {
        double t0 = sample / sampleRate;
        // Per block: the vowel of the current syllable, blended into the next one.
        double syllable = t0 * 4.0;
        int s = (int) syllable;
        double blend = syllable - s;
        double[] v0 = VOWELS[s % VOWELS.length];
        double[] v1 = VOWELS[(s + 1) % VOWELS.length];
        double f0 = 130 + 25 * Math.sin(TWO_PI * 0.45 * t0) + 6 * Math.sin(TWO_PI * 5.5 * t0);
        int harmonics = Math.min(MAX_HARMONICS, (int) (3800 / f0));
        double norm = 0;
        for (int k = 1; k <= harmonics; k++) {
            double fk = k * f0;
            double a = 0;
            for (int f = 0; f < 3; f++) {
                double fc = v0[f] + (v1[f] - v0[f]) * blend * blend;
                double d = (fk - fc) / BANDWIDTHS[f];
                a += (f == 0 ? 1.0 : f == 1 ? 0.6 : 0.3) / (1 + d * d);
            }
            amplitudes[k] = a / k; // glottal source falls off at about -6 dB/octave
            norm += amplitudes[k];
        }
        double scale = 0.6 / Math.max(norm, 1e-9);
        for (int i = 0; i < n; i++) {
            double t = (sample + i) / sampleRate;
            double phrase = (t % 2.0) < 1.6 ? 1.0 : 0.0;
            double syl = Math.sin(Math.PI * ((t * 4.0) % 1.0));
            double env = phrase * syl * syl;
            f0Phase += TWO_PI * f0 / sampleRate;
            if (f0Phase > TWO_PI) {
                f0Phase -= TWO_PI;
            }
            double v = 0;
            for (int k = 1; k <= harmonics; k++) {
                v += amplitudes[k] * Math.sin(k * f0Phase);
            }
            out[i] = (float) Math.max(-1.0, Math.min(1.0, v * scale * env + noiseAmplitude * noise()));
        }
        sample += n;
    }

    /** xorshift32 → uniform [-1, 1). */
    private double noise() {
        int x = noiseState;
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        noiseState = x;
        return x / 2147483648.0;
    }

    /** Samples produced so far. */
    public long position() { return sample; }
}
