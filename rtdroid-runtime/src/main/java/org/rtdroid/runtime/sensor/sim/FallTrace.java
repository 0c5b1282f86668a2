package org.rtdroid.runtime.sensor.sim;

import java.util.Random;
import org.rtdroid.runtime.sensor.InputEvents;

/**
 * Generates the motion of a fall, the fall-detection demo's input (dissertation 3.8.3.1), at a
 * fixed sample rate, with a little seeded sensor noise (the same trace every time):
 *
 * <pre>
 *   0    .. 2.0 s   standing upright: a = (0, 0, 1 g), at rest
 *   2.0  .. 2.3 s   free fall while tipping over: |a| near 0 g, rotating about y to pitch -90°
 *   2.3  .. 2.35 s  impact: |a| peaks above 3 g
 *   2.35 .. 2.6 s   bounce, decaying
 *   2.6  .. 5.0 s   lying on the side: a = (1 g, 0, 0), at rest
 * </pre>
 */
public final class FallTrace {
    public static final double FALL_START_S = 2.0;
    public static final double FREE_FALL_S = 0.3;
    public static final double IMPACT_S = 0.05;
    public static final double IMPACT_PEAK_G = 3.6;
    public static final double DURATION_S = 5.0;

    private FallTrace() {}

    public static MotionTrace generate(int rateHz) {
        if (rateHz < 10 || rateHz > 2000) {
            throw new IllegalArgumentException("sample rate " + rateHz + " Hz outside 10..2000");
        }
        double g = InputEvents.STANDARD_GRAVITY;
        int n = (int) Math.round(DURATION_S * rateHz) + 1;
        long[] t = new long[n];
        float[] v = new float[6 * n];
        Random noise = new Random(14);
        double impactStart = FALL_START_S + FREE_FALL_S;
        double bounceEnd = impactStart + 0.3;
        double tipRate = -(Math.PI / 2) / FREE_FALL_S; // rad/s about y: upright to lying in the fall
        for (int i = 0; i < n; i++) {
            double s = (double) i / rateHz;
            double ax;
            double ay = 0;
            double az;
            double gy = 0;
            if (s < FALL_START_S) {
                ax = 0;
                az = g;
            } else if (s < impactStart) {
                double f = (s - FALL_START_S) / FREE_FALL_S;           // 0..1 through the fall
                double left = 0.05 * g;                                // near 0 g
                ax = left * Math.sin(f * Math.PI / 2);
                az = left * Math.cos(f * Math.PI / 2);
                gy = tipRate;
            } else if (s < impactStart + IMPACT_S) {
                double f = (s - impactStart) / IMPACT_S;               // 0..1 through the impact
                double peak = IMPACT_PEAK_G * g * Math.sin(f * Math.PI);
                ax = g + peak * 0.9;
                az = peak * 0.4;
            } else if (s < bounceEnd) {
                double f = (s - impactStart - IMPACT_S) / (bounceEnd - impactStart - IMPACT_S);
                ax = g + 0.6 * g * Math.exp(-4 * f) * Math.cos(6 * Math.PI * f);
                az = 0;
            } else {
                ax = g;
                az = 0;
            }
            t[i] = Math.round(s * 1e9);
            v[6 * i] = (float) (ax + 0.02 * noise.nextGaussian());
            v[6 * i + 1] = (float) (ay + 0.02 * noise.nextGaussian());
            v[6 * i + 2] = (float) (az + 0.02 * noise.nextGaussian());
            v[6 * i + 3] = (float) (0.002 * noise.nextGaussian());
            v[6 * i + 4] = (float) (gy + 0.002 * noise.nextGaussian());
            v[6 * i + 5] = (float) (0.002 * noise.nextGaussian());
        }
        return new MotionTrace(t, v);
    }
}
