package org.rtdroid.examples.spark;

/**
 * The spark detection app's cross-context payload (record in the bridge's protocols document):
 * one RESULT per displayed frame on channel {@value #RESULT_CHANNEL}, RT cell → Android cell,
 * little-endian. Times are the RT cell's CLOCK_MONOTONIC; the strip's offsets are microseconds
 * from the frame's planned display instant (negative: before it).
 */
public final class SparkProtocol {
    public static final String RESULT_CHANNEL = "spark.result";
    public static final String ACTION_RESULT = "org.rtdroid.spark.RESULT";
    public static final String SENDER = "rtdroid.spark";

    /** i32: the frame's number since the service started (the video's frame is it modulo its length). */
    public static final int FRAME_OFFSET = 0;
    /** i32 x0, y0, x1, y1 (inclusive) of the box around the bright pixels; all -1 when none was found. */
    public static final int BOX_OFFSET = 4;
    /** i32 dx, dy: the analysis's horizontal and vertical step; 0, 0 when there was no time to analyse. */
    public static final int DX_OFFSET = 20;
    public static final int DY_OFFSET = 24;
    /** i32 flags: {@link #FLAG_BOX}, {@link #FLAG_CLOBBERED}, {@link #FLAG_CALIBRATED}. */
    public static final int FLAGS_OFFSET = 28;
    public static final int PLANNED_DISPLAY_OFFSET = 32;
    public static final int ACTUAL_DISPLAY_OFFSET = 40;
    /** i32 µs from the planned display: read start, parse start, analysis start and end (0, 0: none). */
    public static final int READ_BEGIN_OFFSET = 48;
    public static final int PARSE_BEGIN_OFFSET = 52;
    public static final int ANALYSE_BEGIN_OFFSET = 56;
    public static final int ANALYSE_END_OFFSET = 60;
    /** i32 µs: the time that was left for the analysis when its quality was chosen. */
    public static final int AVAILABLE_OFFSET = 64;
    /** i32 ns: the engine's wake-up anticipation (the calibration value) at this display. */
    public static final int ANTICIPATION_OFFSET = 68;
    public static final int RESULT_BYTES = 72;

    public static final int FLAG_BOX = 1;
    /** The display started late because the analysis ended after its planned begin. */
    public static final int FLAG_CLOBBERED = 2;
    /** Feedback calibration of the engine was on. */
    public static final int FLAG_CALIBRATED = 4;

    private SparkProtocol() {}
}
