package org.rtdroid.logic.cochlear;

/**
 * The cochlear implant's signal processing on one block of {@link #SAMPLES_PER_BLOCK} samples (8 ms
 * at 16 kHz), the same in every version of the app:
 * <ol>
 *   <li>an 8-band filter bank (RBJ band-pass biquads, centres 250 Hz-6 kHz, log spaced);</li>
 *   <li>per band: energy, a smoothed envelope, a noise floor tracker and, with noise reduction, a
 *       spectral-subtraction style gain;</li>
 *   <li>per band: a 3:1 compressor above -45 dBFS with 10 dB make-up gain, then the volume;</li>
 *   <li>the re-synthesised output (sum of the weighted bands, hard-limited to [-1, 1]) and 8
 *       electrode levels in [0, 1].</li>
 * </ol>
 * The filter bank's coefficients and states live in a {@link State} the version provides: the
 * RTDroid service's persistent scope, or a plain array ({@link ArrayState}). The cheap mode filters
 * the 4 even bands only (each odd electrode takes its lower neighbour's level). Allocation-free
 * after construction; one thread processes.
 */
public final class SignalPath {
    public static final int SAMPLE_RATE_HZ = 16_000;
    public static final int SAMPLES_PER_BLOCK = 128;
    public static final int BANDS = 8;
    /** Level floor for dBFS figures (silence). */
    public static final float MIN_DBFS = -120f;
    /** Doubles of state per band: 5 coefficients (b1 = 0 unused), 2 filter states, envelope, noise floor. */
    public static final int PER_BAND_DOUBLES = 9;
    public static final int STATE_DOUBLES = BANDS * PER_BAND_DOUBLES;
    private static final int B0 = 0, B2 = 1, A1 = 2, A2 = 3, Z1 = 5, Z2 = 6, ENV = 7, FLOOR = 8;
    private static final double COMPRESSION_THRESHOLD_DB = -45.0;
    private static final double COMPRESSION_RATIO = 3.0;
    private static final double MAKEUP_DB = 10.0;
    private static final double LEVEL_RANGE_DB = 70.0;

    /** Where the filter bank's {@link #STATE_DOUBLES} doubles live. */
    public interface State {
        double get(int index);

        void set(int index, double value);
    }

    /** State in a plain array (the RTSJ-style and Android versions). */
    public static final class ArrayState implements State {
        private final double[] values = new double[STATE_DOUBLES];

        @Override
        public double get(int index) {
            return values[index];
        }

        @Override
        public void set(int index, double value) {
            values[index] = value;
        }
    }

    private final State s;
    private final float[] band = new float[SAMPLES_PER_BLOCK];
    private final float[] y = new float[SAMPLES_PER_BLOCK];
    private final float[] levels = new float[BANDS];
    private float peak;
    private float inputDbfs = MIN_DBFS;
    private float outputDbfs = MIN_DBFS;

    public SignalPath(State state) {
        this.s = state;
        reset();
    }

    /** The filter bank's coefficients, and its states at rest. */
    public void reset() {
        for (int b = 0; b < BANDS; b++) {
            double fc = 250.0 * Math.pow(6000.0 / 250.0, b / (double) (BANDS - 1));
            double w0 = 2 * Math.PI * fc / SAMPLE_RATE_HZ;
            double q = 2.0;
            double alpha = Math.sin(w0) / (2 * q);
            double a0 = 1 + alpha;
            int at = b * PER_BAND_DOUBLES;
            s.set(at + B0, alpha / a0);
            s.set(at + B2, -alpha / a0);
            s.set(at + A1, -2 * Math.cos(w0) / a0);
            s.set(at + A2, (1 - alpha) / a0);
            s.set(at + Z1, 0);
            s.set(at + Z2, 0);
            s.set(at + ENV, 1e-9);
            s.set(at + FLOOR, 1e-6);
        }
        java.util.Arrays.fill(levels, 0f);
        java.util.Arrays.fill(y, 0f);
        peak = 0;
        inputDbfs = MIN_DBFS;
        outputDbfs = MIN_DBFS;
    }

    /**
     * Runs the path on {@code blocks} blocks of a speech source of its own, with noise reduction off
     * and on, then resets: the JIT has compiled it before the first real block. Allocates (the
     * source): call it at set-up, never in a release.
     */
    public void warmUp(int blocks) {
        SpeechSource speech = new SpeechSource(SAMPLE_RATE_HZ, 0.01);
        float[] x = new float[SAMPLES_PER_BLOCK];
        for (int k = 0; k < blocks; k++) {
            speech.next(x, SAMPLES_PER_BLOCK);
            process(x, 1.0, (k & 1) == 1, false);
        }
        reset();
    }

    /**
     * One block: the filter bank, gains and limiter on {@code x}; then {@link #output()},
     * {@link #levels()}, {@link #peak()} and the dBFS figures describe it.
     *
     * @param volumeGain linear gain (the volume: 1 = unity)
     * @param noiseReduction whether the noise-reduction gain applies
     * @param cheap whether only the even bands are filtered
     */
    public void process(float[] x, double volumeGain, boolean noiseReduction, boolean cheap) {
        double inSum = 0;
        for (int i = 0; i < SAMPLES_PER_BLOCK; i++) {
            inSum += x[i] * x[i];
            y[i] = 0f;
        }
        for (int b = 0; b < BANDS; b++) {
            if (cheap && (b & 1) == 1) {
                levels[b] = levels[b - 1];
                continue;
            }
            int at = b * PER_BAND_DOUBLES;
            double b0 = s.get(at + B0);
            double b2 = s.get(at + B2);
            double a1 = s.get(at + A1);
            double a2 = s.get(at + A2);
            double z1 = s.get(at + Z1);
            double z2 = s.get(at + Z2);
            double energy = 0;
            for (int i = 0; i < SAMPLES_PER_BLOCK; i++) {
                double xi = x[i];
                double yi = b0 * xi + z1;          // transposed direct form II, b1 = 0
                z1 = -a1 * yi + z2;
                z2 = b2 * xi - a2 * yi;
                energy += yi * yi;
                band[i] = (float) yi;
            }
            s.set(at + Z1, z1);
            s.set(at + Z2, z2);
            double power = energy / SAMPLES_PER_BLOCK;
            double env = 0.7 * s.get(at + ENV) + 0.3 * power;
            s.set(at + ENV, env);
            // Noise floor: falls fast to quiet blocks, creeps up slowly (minimum tracking).
            double floor = s.get(at + FLOOR);
            floor = power < floor ? 0.8 * floor + 0.2 * power : floor * 1.0015 + 1e-13;
            s.set(at + FLOOR, floor);
            double nrGain = noiseReduction ? Math.max(0.1, Math.min(1.0, 1.0 - 1.5 * floor / (env + 1e-12))) : 1.0;
            double levelDb = 10 * Math.log10(env + 1e-12);
            double compDb = levelDb > COMPRESSION_THRESHOLD_DB
                    ? (COMPRESSION_THRESHOLD_DB + (levelDb - COMPRESSION_THRESHOLD_DB) / COMPRESSION_RATIO) - levelDb
                    : 0.0;
            double gain = Math.pow(10, (compDb + MAKEUP_DB) / 20) * nrGain * volumeGain;
            double outDb = levelDb + 20 * Math.log10(gain + 1e-12);
            double level = (outDb + LEVEL_RANGE_DB) / LEVEL_RANGE_DB;
            levels[b] = (float) Math.max(0.0, Math.min(1.0, level));
            float g = (float) gain;
            for (int i = 0; i < SAMPLES_PER_BLOCK; i++) {
                y[i] += g * band[i];
            }
        }
        double outSum = 0;
        float pk = 0;
        for (int i = 0; i < SAMPLES_PER_BLOCK; i++) {
            float yi = Math.max(-1f, Math.min(1f, y[i])); // limiter
            y[i] = yi;
            outSum += yi * yi;
            pk = Math.max(pk, Math.abs(yi));
        }
        peak = pk;
        inputDbfs = dbfs(Math.sqrt(inSum / SAMPLES_PER_BLOCK));
        outputDbfs = dbfs(Math.sqrt(outSum / SAMPLES_PER_BLOCK));
    }

    /** The last block's output samples (valid until the next {@link #process}). */
    public float[] output() { return y; }

    /** The last block's 8 electrode levels in [0, 1] (valid until the next {@link #process}). */
    public float[] levels() { return levels; }

    public float peak() { return peak; }

    public float inputDbfs() { return inputDbfs; }

    public float outputDbfs() { return outputDbfs; }

    /** RMS → dBFS (full scale = 1.0), floored at {@link #MIN_DBFS}. */
    public static float dbfs(double rms) {
        if (!(rms > 1e-6)) {
            return MIN_DBFS;
        }
        return (float) Math.max(MIN_DBFS, 20.0 * Math.log10(rms));
    }

    /**
     * The implanted device's check of one processed block (every version's output stage): every
     * figure finite, the levels and the peak in [0, 1], the dBFS figures in [-120, 0].
     */
    public static boolean sane(float inputDbfs, float outputDbfs, float peak, float[] levels) {
        boolean ok = saneDbfs(inputDbfs) && saneDbfs(outputDbfs) && peak >= 0f && peak <= 1f;
        for (int b = 0; b < BANDS; b++) {
            ok &= levels[b] >= 0f && levels[b] <= 1f; // false for NaN too
        }
        return ok;
    }

    private static boolean saneDbfs(float v) {
        return v >= MIN_DBFS && v <= 0.001f; // NaN fails both comparisons
    }
}
