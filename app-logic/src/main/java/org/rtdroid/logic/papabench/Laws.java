package org.rtdroid.logic.papabench;

/** Small numeric helpers of the flight laws. */
public final class Laws {
    private Laws() {}

    public static double clamp(double v, double lo, double hi) {
        return v < lo ? lo : v > hi ? hi : v;
    }

    /** Degrees clockwise from north of the line from (e0, n0) to (e1, n1), [0, 360). */
    public static double bearing(double e0, double n0, double e1, double n1) {
        return wrap360(Math.toDegrees(Math.atan2(e1 - e0, n1 - n0)));
    }

    public static double wrap360(double deg) {
        double d = deg % 360;
        return d < 0 ? d + 360 : d;
    }

    public static double wrap180(double deg) {
        double d = wrap360(deg);
        return d > 180 ? d - 360 : d;
    }
}
