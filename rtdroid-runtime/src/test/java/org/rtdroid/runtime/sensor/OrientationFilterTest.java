package org.rtdroid.runtime.sensor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The complementary filter against known motion (100 Hz frames, gyroscope then accelerometer). */
class OrientationFilterTest {
    private static final double G = InputEvents.STANDARD_GRAVITY;
    private static final long STEP = 10_000_000L; // 100 Hz

    private final OrientationFilter f = new OrientationFilter();
    private final float[] out = new float[3];
    private long t = 1_000_000_000L;

    private void step(double gx, double gy, double gz, double ax, double ay, double az) {
        t += STEP;
        f.gyroscope(t, (float) gx, (float) gy, (float) gz);
        f.accelerometer((float) ax, (float) ay, (float) az, out);
    }

    @Test
    void staticTiltGivesPitchAndRollFromGravity() {
        double p = Math.toRadians(30);
        double r = Math.toRadians(-20);
        // gravity in the body frame of a device pitched by p and rolled by r
        double ax = -G * Math.sin(p);
        double ay = G * Math.cos(p) * Math.sin(r);
        double az = G * Math.cos(p) * Math.cos(r);
        for (int i = 0; i < 100; i++) {
            step(0, 0, 0, ax, ay, az);
        }
        assertEquals(30, out[1], 0.1, "pitch");
        assertEquals(-20, out[2], 0.1, "roll");
        assertEquals(0, out[0], 1e-6, "azimuth: no rotation about z");
    }

    @Test
    void yawIntegratesTheZRate() {
        for (int i = 0; i < 200; i++) { // 2 s at 0.5 rad/s = 57.3 degrees
            step(0, 0, 0.5, 0, 0, G);
        }
        assertEquals(Math.toDegrees(0.5 * 1.99), out[0], 0.2, "azimuth after 2 s (the first frame sets the time base)");
        assertEquals(0, out[1], 0.1);
    }

    @Test
    void yawWrapsAround() {
        for (int i = 0; i < 400; i++) { // 4 s at pi/2 rad/s = 360 degrees less one step
            step(0, 0, Math.PI / 2, 0, 0, G);
        }
        assertTrue(out[0] > -180 && out[0] <= 180, "wrapped: " + out[0]);
        assertEquals(-0.9, out[0], 0.2);
    }

    @Test
    void rollFollowsTheGyroscopeAndAgreesWithGravity() {
        step(0, 0, 0, 0, 0, G); // initialise upright
        double rate = Math.toRadians(45); // 45 deg/s about x for 1 s
        double angle = 0;
        for (int i = 0; i < 100; i++) {
            angle += rate * STEP * 1e-9;
            step(rate, 0, 0, 0, G * Math.sin(angle), G * Math.cos(angle));
        }
        assertEquals(45, out[2], 0.5, "roll after 1 s at 45 deg/s");
    }

    @Test
    void freeFallDoesNotPullTheAnglesToNoise() {
        for (int i = 0; i < 50; i++) {
            step(0, 0, 0, -G * 0.5, 0, G * Math.sqrt(0.75)); // pitch 30
        }
        float before = out[1];
        for (int i = 0; i < 30; i++) {
            step(0, 0, 0, 0.3, 0.1, 0.2); // near 0 g: the direction of gravity is unknown
        }
        assertEquals(before, out[1], 1e-4, "pitch held through free fall");
    }

    @Test
    void nothingBeforeTheFirstTrustedAccelerometerFrame() {
        f.gyroscope(t, 1, 1, 1);
        f.accelerometer(0, 0, 0.5f, out); // 0.05 g: not trusted
        assertFalse(f.initialized());
    }
}
