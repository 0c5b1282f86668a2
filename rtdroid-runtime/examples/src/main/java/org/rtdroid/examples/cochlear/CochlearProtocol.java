package org.rtdroid.examples.cochlear;

/**
 * Constants shared by the cochlear components: channel names, actions, and the payload layouts of
 * {@code bridge/docs/protocols.md} (little-endian) and of the RT-internal channels.
 */
public final class CochlearProtocol {
    private CochlearProtocol() {}

    public static final int SAMPLE_RATE_HZ = 16_000;
    /** Samples per 8 ms release. */
    public static final int SAMPLES_PER_BLOCK = 128;
    public static final int BANDS = 8;

    public static final String AUDIO_CHANNEL = "cochlear.audio";
    public static final String OUTPUT_CHANNEL = "cochlear.output";
    public static final String CONFIG_CHANNEL = "cochlear.config";
    public static final String STATUS_CHANNEL = "cochlear.status";

    public static final String ACTION_SET_CONFIG = "org.rtdroid.cochlear.SET_CONFIG";
    public static final String ACTION_CONFIG_ACK = "org.rtdroid.cochlear.CONFIG_ACK";
    public static final String ACTION_STATUS = "org.rtdroid.cochlear.STATUS";
    public static final String ACTION_OUTPUT = "org.rtdroid.cochlear.OUTPUT";

    /** SET_CONFIG payload: i32 volume (0..100), i32 noise_reduction (0 or 1). */
    public static final int CONFIG_BYTES = 8;
    public static final int CONFIG_VOLUME_OFFSET = 0;
    public static final int CONFIG_NOISE_REDUCTION_OFFSET = 4;

    /**
     * Status record (40 bytes): u64 releases, u64 deadline_misses, u64 worst_lateness_nanos,
     * i32 volume, i32 noise_reduction, f32 input_rms_dbfs, f32 output_rms_dbfs.
     */
    public static final int STATUS_BYTES = 40;
    public static final int STATUS_RELEASES_OFFSET = 0;
    public static final int STATUS_DEADLINE_MISSES_OFFSET = 8;
    public static final int STATUS_WORST_LATENESS_OFFSET = 16;
    public static final int STATUS_VOLUME_OFFSET = 24;
    public static final int STATUS_NOISE_REDUCTION_OFFSET = 28;
    public static final int STATUS_INPUT_DBFS_OFFSET = 32;
    public static final int STATUS_OUTPUT_DBFS_OFFSET = 36;
    /** A STATUS every this many processing releases (200 ms). */
    public static final int STATUS_EVERY_RELEASES = 25;

    /** Audio block in a transfer scope: i64 block number, then SAMPLES_PER_BLOCK f32 samples. */
    public static final int AUDIO_BLOCK_OFFSET = 0;
    public static final int AUDIO_SAMPLES_OFFSET = 8;

    /**
     * Output intent (cochlear.output): i64 block number, f32 input dBFS, f32 output dBFS,
     * f32 output peak, then BANDS f32 electrode levels in [0, 1].
     */
    public static final int OUT_BLOCK_OFFSET = 0;
    public static final int OUT_INPUT_DBFS_OFFSET = 8;
    public static final int OUT_OUTPUT_DBFS_OFFSET = 12;
    public static final int OUT_PEAK_OFFSET = 16;
    public static final int OUT_LEVELS_OFFSET = 20;
    public static final int OUT_BYTES = OUT_LEVELS_OFFSET + 4 * BANDS;

    /** Level floor for dBFS figures (silence). */
    public static final float MIN_DBFS = -120f;

    /** RMS → dBFS (full scale = 1.0), floored at {@link #MIN_DBFS}. */
    public static float dbfs(double rms) {
        if (!(rms > 1e-6)) {
            return MIN_DBFS;
        }
        return (float) Math.max(MIN_DBFS, 20.0 * Math.log10(rms));
    }
}
