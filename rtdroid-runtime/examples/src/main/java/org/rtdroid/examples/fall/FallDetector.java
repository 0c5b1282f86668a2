package org.rtdroid.examples.fall;

/**
 * Detects a fall from the magnitude of the acceleration (dissertation 3.8.3.1: the application
 * takes the accelerometer's x, y, z and "computes the fall detection algorithm"; the dissertation
 * gives no thresholds, these are the usual free-fall-then-impact scheme of wearable fall
 * detectors): the magnitude stays below {@link #FREE_FALL_G} for at least
 * {@link #FREE_FALL_MIN_NANOS}, then rises above {@link #IMPACT_G} within {@link #IMPACT_WINDOW_NANOS}
 * of the free fall's end. The fall is reported once the impact is over (the magnitude back below
 * {@link #IMPACT_G}, or the window's end), with the impact's peak; after a report the detector
 * rests for {@link #REFRACTORY_NANOS}, so one fall is one report.
 *
 * <p>Walking (0.7-1.4 g) never falls below the free-fall threshold for long, and sitting down hard
 * has an impact without the free fall before it. Allocation-free: state is a few fields, and a
 * sample costs a square root.
 */
public final class FallDetector {
    /** Standard gravity, m/s² per g. */
    public static final double G = 9.80665;
    /** Below this the body is falling (a resting magnitude is 1 g). */
    public static final double FREE_FALL_G = 0.5;
    /** How long the free fall must last: ~0.15 s is a fall of ~11 cm, more than a stumble. */
    public static final long FREE_FALL_MIN_NANOS = 150_000_000L;
    /** An impact with the ground. */
    public static final double IMPACT_G = 2.5;
    /** The impact must come this soon after the free fall ends. */
    public static final long IMPACT_WINDOW_NANOS = 1_000_000_000L;
    /** No second report this soon after one (the body bounces, the trace goes on). */
    public static final long REFRACTORY_NANOS = 2_000_000_000L;

    private static final int IDLE = 0;
    private static final int FALLING = 1;   // below FREE_FALL_G since fallStart
    private static final int AWAITING_IMPACT = 2;
    private static final int IMPACT = 3;    // above IMPACT_G, tracking the peak

    private int state = IDLE;
    private long fallStart;
    private long fallEnd;
    private long impactStart;
    private double peakG;
    private boolean resting;
    private long restUntil;
    private long falls;
    private long lastImpactNanos;
    private double lastPeakG;
    private long lastFreeFallNanos;

    /**
     * One accelerometer sample (m/s², timestamps nondecreasing).
     *
     * @return true when this sample completes a fall: read {@link #lastImpactNanos()},
     *     {@link #lastPeakG()} and {@link #lastFreeFallNanos()}
     */
    public boolean onSample(long timestampNanos, float x, float y, float z) {
        double g = Math.sqrt((double) x * x + (double) y * y + (double) z * z) / G;
        if (resting) {
            if (timestampNanos - restUntil < 0) {
                return false;
            }
            resting = false;
        }
        switch (state) {
            case FALLING:
                if (g < FREE_FALL_G) {
                    return false;
                }
                if (timestampNanos - fallStart >= FREE_FALL_MIN_NANOS) {
                    fallEnd = timestampNanos;
                    state = AWAITING_IMPACT;
                    return impactBegins(timestampNanos, g);
                }
                state = IDLE; // too short: a stumble or a jolt
                return false;
            case AWAITING_IMPACT:
                if (timestampNanos - fallEnd > IMPACT_WINDOW_NANOS) {
                    state = IDLE;
                    return startsFalling(timestampNanos, g);
                }
                return impactBegins(timestampNanos, g);
            case IMPACT:
                if (g > IMPACT_G && timestampNanos - fallEnd <= IMPACT_WINDOW_NANOS) {
                    peakG = Math.max(peakG, g);
                    return false;
                }
                return report(timestampNanos);
            case IDLE:
            default:
                return startsFalling(timestampNanos, g);
        }
    }

    private boolean startsFalling(long t, double g) {
        if (g < FREE_FALL_G) {
            state = FALLING;
            fallStart = t;
        }
        return false;
    }

    private boolean impactBegins(long t, double g) {
        if (g > IMPACT_G) {
            state = IMPACT;
            impactStart = t;
            peakG = g;
        }
        return false;
    }

    private boolean report(long t) {
        falls++;
        lastImpactNanos = impactStart;
        lastPeakG = peakG;
        lastFreeFallNanos = fallEnd - fallStart;
        state = IDLE;
        resting = true;
        restUntil = t + REFRACTORY_NANOS;
        return true;
    }

    /** Falls reported so far. */
    public long falls() {
        return falls;
    }

    /** The timestamp of the last reported fall's impact (its first sample above {@link #IMPACT_G}). */
    public long lastImpactNanos() {
        return lastImpactNanos;
    }

    /** The last reported fall's peak magnitude, in g. */
    public double lastPeakG() {
        return lastPeakG;
    }

    /** How long the last reported fall's free fall lasted. */
    public long lastFreeFallNanos() {
        return lastFreeFallNanos;
    }
}
