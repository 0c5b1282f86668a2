package org.rtdroid.examples.autopilot;

import static org.rtdroid.examples.autopilot.AutopilotProtocol.*;

/**
 * The autopilot's navigation and guidance (jPapaBench's autopilot module; Paparazzi's modes), in
 * two steps the AutopilotService's 50 ms task runs:
 * <ul>
 *   <li>{@link #navigate} on each GPS fix, every 250 ms (jPapaBench's navigation and altitude
 *       tasks run every 250 ms): in AUTO2 the target is the flight plan's current waypoint, taken
 *       as reached within {@link #ARRIVAL_RADIUS_M}, the next one then becomes the target, and after
 *       the last one the mode becomes HOME. In HOME the aircraft flies to the home waypoint and
 *       circles it clockwise at {@link #CIRCLE_RADIUS_M}. Either gives a desired course and altitude.</li>
 *   <li>{@link #control} every 50 ms (jPapaBench's stabilisation and link-to-FBW period): the
 *       command for the fly-by-wire. AUTO2 and HOME: course hold (roll set-point proportional to the
 *       course error) and altitude hold (a climb rate proportional to the altitude error, flown by
 *       pitch and throttle). AUTO1: the sticks scaled to roll and pitch set-points. MANUAL: the
 *       sticks as deflections.</li>
 * </ul>
 * The sticks and mode changes come from the ground station ({@link #setMode}). Distances in
 * metres east and north of home, angles in degrees. State is fields: nothing allocates.
 *
 * <p>One thread (the autopilot's control task) steps it; the fields others read (status,
 * tests) are volatile.
 */
public final class Navigator {
    /** The flight plan: east, north, altitude of each waypoint (m). */
    static final double[][] FLIGHT_PLAN = {{0, 150, 100}, {150, 150, 100}};
    public static final double HOME_ALTITUDE_M = 100;
    public static final double ARRIVAL_RADIUS_M = 25;
    public static final double CIRCLE_RADIUS_M = 60;
    public static final double MAX_ROLL_SETPOINT_DEG = 30;
    public static final double MAX_PITCH_SETPOINT_DEG = 12;
    public static final double MAX_CLIMB_MS = 3;
    static final double K_COURSE = 0.6;     // degrees of roll per degree of course error
    static final double K_ALTITUDE = 0.3;   // m/s of climb per m of altitude error
    static final double K_CLIMB = 2.0;      // degrees of pitch per m/s of climb error
    static final double CRUISE_THROTTLE = 0.5;
    static final double K_THROTTLE = 0.08;  // throttle per m/s of climb set-point

    private volatile int mode;
    private volatile int waypoint;
    private double targetEast;
    private double targetNorth;
    private volatile double desiredCourse;
    private volatile double desiredAltitude;
    private volatile double distance;
    private volatile long fixes;
    private volatile double east;
    private volatile double north;
    private volatile double altitude;
    private volatile double course;
    private volatile double speed;
    private volatile double climb;
    private volatile double rollStick;
    private volatile double pitchStick;
    private volatile double throttleStick;
    // the command of the last control step (its mode: the one it was computed for)
    private volatile int commandMode;
    private volatile double a;
    private volatile double b;
    private volatile double throttle;

    /** Starts in {@code mode} with the flight plan's first waypoint as the target. */
    public Navigator(int mode) {
        if (modeName(mode) == null) {
            throw new IllegalArgumentException("unknown mode " + mode);
        }
        this.mode = mode;
        desiredAltitude = HOME_ALTITUDE_M;
        throttleStick = CRUISE_THROTTLE;
    }

    /**
     * The ground station's radio: a mode and the sticks (roll, pitch -1..1, throttle 0..1).
     * AUTO2 resumes the flight plan (from its start when it was finished).
     *
     * @return false (nothing changed) for an unknown mode or a stick out of range
     */
    public boolean setMode(int newMode, double roll, double pitch, double throttle) {
        if (modeName(newMode) == null || !(roll >= -1 && roll <= 1) || !(pitch >= -1 && pitch <= 1)
                || !(throttle >= 0 && throttle <= 1)) {
            return false;
        }
        if (newMode == MODE_AUTO2 && waypoint >= FLIGHT_PLAN.length) {
            waypoint = 0;
        }
        mode = newMode;
        rollStick = roll;
        pitchStick = pitch;
        throttleStick = throttle;
        return true;
    }

    /** One GPS fix (every 250 ms): waypoint sequencing, mode transitions, desired course and altitude. */
    public void navigate(double east, double north, double altitude, double course, double speed, double climb) {
        fixes++;
        this.east = east;
        this.north = north;
        this.altitude = altitude;
        this.course = course;
        this.speed = speed;
        this.climb = climb;
        if (mode == MODE_AUTO2) {
            while (waypoint < FLIGHT_PLAN.length
                    && Math.hypot(FLIGHT_PLAN[waypoint][0] - east, FLIGHT_PLAN[waypoint][1] - north) < ARRIVAL_RADIUS_M) {
                waypoint++;
            }
            if (waypoint >= FLIGHT_PLAN.length) {
                mode = MODE_HOME;
            } else {
                targetEast = FLIGHT_PLAN[waypoint][0];
                targetNorth = FLIGHT_PLAN[waypoint][1];
                desiredAltitude = FLIGHT_PLAN[waypoint][2];
                distance = Math.hypot(targetEast - east, targetNorth - north);
                desiredCourse = bearing(east, north, targetEast, targetNorth);
            }
        }
        if (mode == MODE_HOME) {
            targetEast = 0;
            targetNorth = 0;
            desiredAltitude = HOME_ALTITUDE_M;
            distance = Math.hypot(east, north);
            // Tangent of the clockwise circle, turned toward the centre by the radial error (far away: straight home).
            double correction = Stabiliser.clamp((distance - CIRCLE_RADIUS_M) * 2, -90, 90);
            desiredCourse = wrap360(bearing(east, north, 0, 0) - 90 + correction);
        }
    }

    /** One 50 ms control step: the command for the fly-by-wire (read {@link #commandA()} etc.). */
    public void control() {
        int m = mode;
        commandMode = m;
        switch (m) {
            case MODE_MANUAL -> {
                a = rollStick;
                b = pitchStick;
                throttle = throttleStick;
            }
            case MODE_AUTO1 -> {
                a = rollStick * Stabiliser.MAX_ROLL_DEG;
                b = pitchStick * Stabiliser.MAX_PITCH_DEG;
                throttle = throttleStick;
            }
            default -> {
                if (fixes == 0) { // no fix yet: wings level, hold the nose level
                    a = 0;
                    b = 0;
                    throttle = CRUISE_THROTTLE;
                    return;
                }
                a = Stabiliser.clamp(K_COURSE * wrap180(desiredCourse - course), -MAX_ROLL_SETPOINT_DEG, MAX_ROLL_SETPOINT_DEG);
                double climbSetpoint = Stabiliser.clamp(K_ALTITUDE * (desiredAltitude - altitude), -MAX_CLIMB_MS, MAX_CLIMB_MS);
                double level = Math.toDegrees(Math.asin(Stabiliser.clamp(climbSetpoint / Math.max(speed, 5), -1, 1)));
                b = Stabiliser.clamp(level + K_CLIMB * (climbSetpoint - climb), -MAX_PITCH_SETPOINT_DEG, MAX_PITCH_SETPOINT_DEG);
                throttle = Stabiliser.clamp(CRUISE_THROTTLE + K_THROTTLE * climbSetpoint, 0, 1);
            }
        }
    }

    /** Degrees clockwise from north of the line from (e0, n0) to (e1, n1), [0, 360). */
    static double bearing(double e0, double n0, double e1, double n1) {
        return wrap360(Math.toDegrees(Math.atan2(e1 - e0, n1 - n0)));
    }

    static double wrap360(double deg) {
        double d = deg % 360;
        return d < 0 ? d + 360 : d;
    }

    static double wrap180(double deg) {
        double d = wrap360(deg);
        return d > 180 ? d - 360 : d;
    }

    public int mode() { return mode; }
    /** Index of the target waypoint in the flight plan, or -1 while the target is home (HOME) or there is none (MANUAL, AUTO1). */
    public int waypoint() { return mode == MODE_AUTO2 ? waypoint : -1; }
    /** Waypoints of the flight plan reached since the last restart of the plan. */
    public int waypointsReached() { return waypoint; }
    public double distanceToTarget() { return mode == MODE_AUTO2 || mode == MODE_HOME ? distance : 0; }
    public double desiredCourse() { return desiredCourse; }
    public double desiredAltitude() { return desiredAltitude; }
    public long fixes() { return fixes; }
    public double east() { return east; }
    public double north() { return north; }
    public double altitude() { return altitude; }
    public double course() { return course; }
    public double speed() { return speed; }
    /** The mode the last command was computed in (a MANUAL command carries deflections, the others angles). */
    public int commandMode() { return commandMode; }
    public double commandA() { return a; }
    public double commandB() { return b; }
    public double commandThrottle() { return throttle; }
    public static int flightPlanLength() { return FLIGHT_PLAN.length; }
}
