package org.rtdroid.logic.papabench;

/**
 * jPapaBench's autopilot module: the state its seven tasks share and each task's step. Every
 * version of the app runs these steps from its own tasks and feeds them from its own links:
 * <ul>
 *   <li>{@link #radioControl} (25 ms): the ground station's radio as the fly-by-wire relays it: a
 *       new mode request and the sticks (AUTO2 resumes the flight plan, from its start when it was
 *       finished);</li>
 *   <li>{@link #attitude}: an infrared attitude sample (roll, pitch and their rates), from the
 *       simulator's IR task through the sensor path;</li>
 *   <li>{@link #stabilization} (50 ms): the roll and pitch set-points held by a PD law per axis
 *       against the attitude: aileron and elevator; MANUAL passes the sticks through, AUTO1 takes
 *       the sticks as angles, AUTO2 and HOME the set-points of the control loops below;</li>
 *   <li>{@link #linkFbwSend} (50 ms): what goes to the fly-by-wire (mode, deflections, throttle);</li>
 *   <li>{@link #reporting} (100 ms): the numbers the ground station shows;</li>
 *   <li>{@link #navigation} (250 ms, on the newest GPS fix): in AUTO2 the flight plan's current
 *       waypoint is the target, reached within {@link #ARRIVAL_RADIUS_M}, then the next one; after
 *       the last one HOME: fly to home and circle it clockwise at {@link #CIRCLE_RADIUS_M}. Gives
 *       the desired course and altitude, and holds the course (a roll set-point proportional to
 *       the course error);</li>
 *   <li>{@link #altitudeControl} (250 ms): a climb rate proportional to the altitude error;</li>
 *   <li>{@link #climbControl} (250 ms): the pitch set-point and throttle that fly that climb.</li>
 * </ul>
 * Distances in metres east and north of home, angles in degrees. State is fields; a step
 * allocates nothing. Each step is run by one task at a time; the fields other threads read are
 * volatile.
 */
public final class Autopilot {
    /** The flight plan: east, north, altitude of each waypoint (m). */
    static final double[][] FLIGHT_PLAN = {{0, 150, 100}, {150, 150, 100}};
    public static final double HOME_ALTITUDE_M = 100;
    public static final double ARRIVAL_RADIUS_M = 25;
    public static final double CIRCLE_RADIUS_M = 60;
    public static final double MAX_ROLL_SETPOINT_DEG = 30;
    public static final double MAX_PITCH_SETPOINT_DEG = 12;
    public static final double MAX_ROLL_DEG = 35;
    public static final double MAX_PITCH_DEG = 15;
    public static final double MAX_CLIMB_MS = 3;
    public static final double CRUISE_THROTTLE = 0.5;
    static final double K_COURSE = 0.6;      // degrees of roll per degree of course error
    static final double K_ALTITUDE = 0.3;    // m/s of climb per m of altitude error
    static final double K_CLIMB = 2.0;       // degrees of pitch per m/s of climb error
    static final double K_THROTTLE = 0.08;   // throttle per m/s of climb set-point
    static final double K_ROLL = 0.04;       // aileron per degree of roll error
    static final double K_ROLL_RATE = 0.012; // aileron per degree/s of roll rate
    static final double K_PITCH = 0.06;      // elevator per degree of pitch error
    static final double K_PITCH_RATE = 0.01; // elevator per degree/s of pitch rate
    public static final int START_MODE = Modes.AUTO2;

    // radio (radioControl)
    private volatile int mode = START_MODE;
    private double rollStick;
    private double pitchStick;
    private double throttleStick = CRUISE_THROTTLE;
    private long radioSeq;
    private volatile long modeRequestsRefused;
    private volatile boolean fbwFailsafe;
    // attitude (IR)
    private volatile double roll;
    private volatile double pitch;
    private double rollRate;
    private double pitchRate;
    private volatile long attitudeSamples;
    // GPS and navigation
    private volatile int waypoint;
    private volatile double desiredCourse;
    private volatile double desiredAltitude = HOME_ALTITUDE_M;
    private volatile double distance;
    private volatile long fixes;
    private volatile double east;
    private volatile double north;
    private volatile double altitude;
    private volatile double course;
    private volatile double speed;
    private double climb;
    // set-points of the control loops
    private double rollSetpoint;
    private double climbSetpoint;
    private double pitchSetpoint;
    private double loopThrottle = CRUISE_THROTTLE;
    // stabilization's output, sent by linkFbwSend
    private volatile double aileron;
    private volatile double elevator;
    private volatile double throttle = CRUISE_THROTTLE;
    private volatile int commandMode = START_MODE;

    /**
     * RadioControl: the radio as the fly-by-wire last relayed it. {@code seq} numbers the ground
     * station's requests; a new one changes the mode and the sticks.
     *
     * @return false when a new request was refused (unknown mode, a stick out of range): counted
     */
    public boolean radioControl(long seq, int requestedMode, double roll, double pitch, double throttleStick,
                                boolean fbwFailsafe) {
        this.fbwFailsafe = fbwFailsafe;
        if (seq == radioSeq) {
            return true;
        }
        radioSeq = seq;
        if (Modes.name(requestedMode) == null || !(roll >= -1 && roll <= 1) || !(pitch >= -1 && pitch <= 1)
                || !(throttleStick >= 0 && throttleStick <= 1)) {
            modeRequestsRefused++;
            return false;
        }
        if (requestedMode == Modes.AUTO2 && waypoint >= FLIGHT_PLAN.length) {
            waypoint = 0;
        }
        mode = requestedMode;
        rollStick = roll;
        pitchStick = pitch;
        this.throttleStick = throttleStick;
        return true;
    }

    /** An infrared attitude sample: degrees and degrees/s. */
    public void attitude(double roll, double pitch, double rollRate, double pitchRate) {
        this.roll = roll;
        this.pitch = pitch;
        this.rollRate = rollRate;
        this.pitchRate = pitchRate;
        attitudeSamples++;
    }

    /** Stabilization: the mode's set-points against the attitude; then read {@link #aileron()} etc. */
    public void stabilization() {
        int m = mode;
        commandMode = m;
        double rollSp;
        double pitchSp;
        switch (m) {
            case Modes.MANUAL:
                aileron = Laws.clamp(rollStick, -1, 1);
                elevator = Laws.clamp(pitchStick, -1, 1);
                throttle = Laws.clamp(throttleStick, 0, 1);
                return;
            case Modes.AUTO1:
                rollSp = rollStick * MAX_ROLL_DEG;
                pitchSp = pitchStick * MAX_PITCH_DEG;
                throttle = Laws.clamp(throttleStick, 0, 1);
                break;
            default:
                if (fixes == 0) { // no fix yet: wings level, nose level
                    rollSp = 0;
                    pitchSp = 0;
                    throttle = CRUISE_THROTTLE;
                } else {
                    rollSp = rollSetpoint;
                    pitchSp = pitchSetpoint;
                    throttle = loopThrottle;
                }
        }
        aileron = pd(Laws.clamp(rollSp, -MAX_ROLL_DEG, MAX_ROLL_DEG), roll, rollRate, K_ROLL, K_ROLL_RATE);
        elevator = pd(Laws.clamp(pitchSp, -MAX_PITCH_DEG, MAX_PITCH_DEG), pitch, pitchRate, K_PITCH, K_PITCH_RATE);
    }

    private static double pd(double setpoint, double angle, double rate, double kp, double kd) {
        return Laws.clamp(kp * (setpoint - angle) - kd * rate, -1, 1);
    }

    /** Navigation: one GPS fix (m, degrees, m/s): waypoints, mode transitions, desired course and altitude, course hold. */
    public void navigation(double east, double north, double altitude, double course, double speed, double climb) {
        fixes++;
        this.east = east;
        this.north = north;
        this.altitude = altitude;
        this.course = course;
        this.speed = speed;
        this.climb = climb;
        if (mode == Modes.AUTO2) {
            while (waypoint < FLIGHT_PLAN.length
                    && Math.hypot(FLIGHT_PLAN[waypoint][0] - east, FLIGHT_PLAN[waypoint][1] - north) < ARRIVAL_RADIUS_M) {
                waypoint++;
            }
            if (waypoint >= FLIGHT_PLAN.length) {
                mode = Modes.HOME;
            } else {
                desiredAltitude = FLIGHT_PLAN[waypoint][2];
                distance = Math.hypot(FLIGHT_PLAN[waypoint][0] - east, FLIGHT_PLAN[waypoint][1] - north);
                desiredCourse = Laws.bearing(east, north, FLIGHT_PLAN[waypoint][0], FLIGHT_PLAN[waypoint][1]);
            }
        }
        if (mode == Modes.HOME) {
            desiredAltitude = HOME_ALTITUDE_M;
            distance = Math.hypot(east, north);
            // The tangent of the clockwise circle, turned toward the centre by the radial error (far away: straight home).
            double correction = Laws.clamp((distance - CIRCLE_RADIUS_M) * 2, -90, 90);
            desiredCourse = Laws.wrap360(Laws.bearing(east, north, 0, 0) - 90 + correction);
        }
        rollSetpoint = Laws.clamp(K_COURSE * Laws.wrap180(desiredCourse - course), -MAX_ROLL_SETPOINT_DEG,
                MAX_ROLL_SETPOINT_DEG);
    }

    /** AltitudeControl: the climb rate that brings the altitude to the desired one. */
    public void altitudeControl() {
        climbSetpoint = Laws.clamp(K_ALTITUDE * (desiredAltitude - altitude), -MAX_CLIMB_MS, MAX_CLIMB_MS);
    }

    /** ClimbControl: the pitch set-point and throttle that fly the climb set-point. */
    public void climbControl() {
        double level = Math.toDegrees(Math.asin(Laws.clamp(climbSetpoint / Math.max(speed, 5), -1, 1)));
        pitchSetpoint = Laws.clamp(level + K_CLIMB * (climbSetpoint - climb), -MAX_PITCH_SETPOINT_DEG,
                MAX_PITCH_SETPOINT_DEG);
        loopThrottle = Laws.clamp(CRUISE_THROTTLE + K_THROTTLE * climbSetpoint, 0, 1);
    }

    public int mode() { return mode; }
    /** The mode the last stabilization step flew (what linkFbwSend tells the fly-by-wire). */
    public int commandMode() { return commandMode; }
    public double aileron() { return aileron; }
    public double elevator() { return elevator; }
    public double throttle() { return throttle; }
    /** Index of the target waypoint, or -1 while the target is home (HOME) or there is none (MANUAL, AUTO1). */
    public int waypoint() { return mode == Modes.AUTO2 ? waypoint : -1; }
    public int waypointsReached() { return waypoint; }
    public double distanceToTarget() { return mode == Modes.AUTO2 || mode == Modes.HOME ? distance : 0; }
    public long fixes() { return fixes; }
    public double east() { return east; }
    public double north() { return north; }
    public double altitude() { return altitude; }
    public double course() { return course; }
    public double speed() { return speed; }
    public double roll() { return roll; }
    public double pitch() { return pitch; }
    public long attitudeSamples() { return attitudeSamples; }
    public double desiredAltitude() { return desiredAltitude; }
    public long modeRequestsRefused() { return modeRequestsRefused; }
    /** Whether the fly-by-wire's last frame said it lost the autopilot's commands. */
    public boolean fbwFailsafe() { return fbwFailsafe; }
    public static int flightPlanLength() { return FLIGHT_PLAN.length; }
}
