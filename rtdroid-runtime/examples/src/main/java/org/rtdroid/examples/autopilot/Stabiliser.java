package org.rtdroid.examples.autopilot;

import static org.rtdroid.examples.autopilot.AutopilotProtocol.*;

/**
 * The fly-by-wire's stabilisation law, one step per 25 ms release: from the autopilot's latest
 * command and the measured attitude (roll, pitch from the orientation sensor; their rates from the
 * gyroscope) to servo deflections.
 *
 * <ul>
 *   <li>MANUAL: the command's deflections pass through (clamped): the pilot flies.</li>
 *   <li>AUTO1, AUTO2, HOME: a PD law per axis,
 *       {@code aileron = K_ROLL·(roll_sp − roll) − K_ROLL_RATE·roll_rate},
 *       {@code elevator = K_PITCH·(pitch_sp − pitch) − K_PITCH_RATE·pitch_rate}, set-points clamped
 *       to ±{@link #MAX_ROLL_DEG} and ±{@link #MAX_PITCH_DEG}, deflections to [-1, 1].</li>
 *   <li>Failsafe (jPapaBench's FBW check_failsafe): no command for {@link #FAILSAFE_RELEASES}
 *       releases (the link to the autopilot is lost) levels the wings, holds the pitch at 0 and sets
 *       {@link #FAILSAFE_THROTTLE}, until a command arrives again.</li>
 * </ul>
 * State is a few fields: a step allocates nothing. One thread steps it.
 */
public final class Stabiliser {
    public static final double K_ROLL = 0.04;        // per degree of roll error
    public static final double K_ROLL_RATE = 0.012;  // per degree/s of roll rate
    public static final double K_PITCH = 0.06;       // per degree of pitch error
    public static final double K_PITCH_RATE = 0.01;  // per degree/s of pitch rate
    public static final double MAX_ROLL_DEG = 35;
    public static final double MAX_PITCH_DEG = 15;
    /** 8 releases of 25 ms: four autopilot commands (50 ms apart) missed. */
    public static final int FAILSAFE_RELEASES = 8;
    public static final double FAILSAFE_THROTTLE = 0.3;

    // mode and the failsafe count are read by other threads (status); the rest only by the stepping thread
    private volatile int mode = MODE_MANUAL;
    private double a;
    private double b;
    private double throttle;
    private volatile int releasesWithoutCommand = FAILSAFE_RELEASES; // no command yet: failsafe until the first
    private double aileron;
    private double elevator;
    private double servoThrottle;

    /** The autopilot's command (see {@link AutopilotProtocol#COMMAND_BYTES}); an unknown mode is ignored. */
    public void command(int mode, double a, double b, double throttle) {
        if (modeName(mode) == null) {
            return;
        }
        this.mode = mode;
        this.a = a;
        this.b = b;
        this.throttle = throttle;
        releasesWithoutCommand = -1; // this release has a command
    }

    /** One 25 ms release: attitude in degrees, rates in degrees/s; then read the servos. */
    public void step(double roll, double pitch, double rollRate, double pitchRate) {
        releasesWithoutCommand++;
        if (failsafe()) {
            aileron = pd(0, roll, rollRate, K_ROLL, K_ROLL_RATE);
            elevator = pd(0, pitch, pitchRate, K_PITCH, K_PITCH_RATE);
            servoThrottle = FAILSAFE_THROTTLE;
        } else if (mode == MODE_MANUAL) {
            aileron = clamp(a, -1, 1);
            elevator = clamp(b, -1, 1);
            servoThrottle = clamp(throttle, 0, 1);
        } else {
            aileron = pd(clamp(a, -MAX_ROLL_DEG, MAX_ROLL_DEG), roll, rollRate, K_ROLL, K_ROLL_RATE);
            elevator = pd(clamp(b, -MAX_PITCH_DEG, MAX_PITCH_DEG), pitch, pitchRate, K_PITCH, K_PITCH_RATE);
            servoThrottle = clamp(throttle, 0, 1);
        }
    }

    private static double pd(double setpoint, double angle, double rate, double kp, double kd) {
        return clamp(kp * (setpoint - angle) - kd * rate, -1, 1);
    }

    static double clamp(double v, double lo, double hi) {
        return v < lo ? lo : v > hi ? hi : v;
    }

    /** True while the link to the autopilot is lost. */
    public boolean failsafe() { return releasesWithoutCommand >= FAILSAFE_RELEASES; }

    public double aileron() { return aileron; }
    public double elevator() { return elevator; }
    public double throttle() { return servoThrottle; }
    public int mode() { return mode; }
}
