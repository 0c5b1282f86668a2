package org.rtdroid.examples.cochlear;

import org.rtdroid.logic.cochlear.SignalPath;

/**
 * Constants shared by the cochlear components: the RT-internal channels and their layouts
 * (little-endian). What crosses to the Android cell is the app's contract,
 * {@code bridge/contracts/cochlear.proto} ({@code org.rtdroid.contract.cochlear.Cochlear}).
 */
public final class CochlearProtocol {
    private CochlearProtocol() {}

    public static final int SAMPLE_RATE_HZ = SignalPath.SAMPLE_RATE_HZ;
    /** Samples per 8 ms release. */
    public static final int SAMPLES_PER_BLOCK = SignalPath.SAMPLES_PER_BLOCK;
    public static final int BANDS = SignalPath.BANDS;

    public static final String AUDIO_CHANNEL = "cochlear.audio";
    public static final String OUTPUT_CHANNEL = "cochlear.output";
    public static final String ACTION_OUTPUT = "org.rtdroid.cochlear.OUTPUT";
    /** The sender name of the app's cross-context intents. */
    public static final String SENDER = "rtdroid.cochlear";

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
    public static final float MIN_DBFS = SignalPath.MIN_DBFS;
}
