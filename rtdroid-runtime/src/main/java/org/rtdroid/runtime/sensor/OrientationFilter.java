package org.rtdroid.runtime.sensor;

/**
 * The software orientation sensor: a complementary filter over accelerometer and gyroscope.
 * Pitch and roll integrate the gyroscope's rates and are pulled toward the angles the gravity
 * vector gives ({@code roll = atan2(ay, az)}, {@code pitch = atan2(-ax, sqrt(ay² + az²))}) with
 * weight {@code 1 - }{@value #ALPHA} per accelerometer frame; yaw (azimuth) integrates the
 * z rate alone (no magnetometer: it drifts with the gyroscope's bias). While the measured
 * acceleration is far from 1 g (free fall, impact) the accelerometer does not say where down is,
 * so only the gyroscope moves the angles. Angles in degrees, yaw wrapped to (-180, 180]; roll is
 * meaningful within ±90° of upright in pitch. Not thread-safe: the orientation processing thread owns it.
 */
final class OrientationFilter {
    static final double ALPHA = 0.98;
    /** Accelerometer magnitudes (in g) between which it is trusted as the direction of gravity. */
    static final double TRUST_MIN_G = 0.7;
    static final double TRUST_MAX_G = 1.3;
    /** A gap between gyroscope frames longer than this is not integrated (a pause, not motion). */
    static final long MAX_GYRO_GAP_NANOS = 500_000_000L;

    private boolean initialized;
    private long lastGyroNanos = Long.MIN_VALUE;
    private double pitch;
    private double roll;
    private double yaw;

    /** Rates in rad/s about x, y, z at {@code timeNanos}. */
    void gyroscope(long timeNanos, float gx, float gy, float gz) {
        long last = lastGyroNanos;
        lastGyroNanos = timeNanos;
        if (!initialized || last == Long.MIN_VALUE) {
            return;
        }
        long gap = timeNanos - last;
        if (gap <= 0 || gap > MAX_GYRO_GAP_NANOS) {
            return;
        }
        double dt = gap * 1e-9;
        roll += Math.toDegrees(gx) * dt;
        pitch += Math.toDegrees(gy) * dt;
        yaw = wrap(yaw + Math.toDegrees(gz) * dt);
    }

    /** Acceleration in m/s²; writes azimuth, pitch, roll (degrees) into {@code out}. */
    void accelerometer(float ax, float ay, float az, float[] out) {
        double g = Math.sqrt((double) ax * ax + (double) ay * ay + (double) az * az) / InputEvents.STANDARD_GRAVITY;
        if (g >= TRUST_MIN_G && g <= TRUST_MAX_G) {
            double accRoll = Math.toDegrees(Math.atan2(ay, az));
            double accPitch = Math.toDegrees(Math.atan2(-ax, Math.sqrt((double) ay * ay + (double) az * az)));
            if (!initialized) {
                roll = accRoll;
                pitch = accPitch;
                initialized = true;
            } else {
                roll = ALPHA * roll + (1 - ALPHA) * accRoll;
                pitch = ALPHA * pitch + (1 - ALPHA) * accPitch;
            }
        }
        out[0] = (float) yaw;
        out[1] = (float) pitch;
        out[2] = (float) roll;
    }

    boolean initialized() { return initialized; }

    private static double wrap(double deg) {
        double d = deg % 360.0;
        if (d > 180.0) {
            d -= 360.0;
        } else if (d <= -180.0) {
            d += 360.0;
        }
        return d;
    }
}
