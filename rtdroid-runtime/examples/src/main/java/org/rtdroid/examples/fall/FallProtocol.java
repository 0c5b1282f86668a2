package org.rtdroid.examples.fall;

/** The fall detection app's cross-context channel and its record (bridge/docs/protocols.md, little-endian). */
public final class FallProtocol {
    private FallProtocol() {}

    public static final String ALERT_CHANNEL = "fall.alert";
    public static final String ACTION_FALL = "org.rtdroid.fall.FALL";
    public static final String SENDER = "rtdroid.fall";
    /** The alert's priority class on the wire (0..99): above the cochlear implant's status. */
    public static final int ALERT_PRIORITY = 90;

    /** Fall record (24 bytes): i64 impact_nanos, i64 falls, f32 peak_g, f32 free_fall_ms. */
    public static final int FALL_BYTES = 24;
    public static final int FALL_IMPACT_NANOS_OFFSET = 0;
    public static final int FALL_COUNT_OFFSET = 8;
    public static final int FALL_PEAK_G_OFFSET = 16;
    public static final int FALL_FREE_FALL_MS_OFFSET = 20;
}
