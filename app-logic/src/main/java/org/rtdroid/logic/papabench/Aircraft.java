package org.rtdroid.logic.papabench;

/**
 * The flight simulator's aircraft: a small fixed-wing model (jPapaBench's simulator module: it
 * "determines the UAV's location, trajectory, and generates input from the environment"),
 * integrated with explicit Euler steps.
 *
 * <pre>
 *   roll:   p' = ROLL_AUTHORITY·aileron − ROLL_DAMPING·p                  φ' = p
 *   pitch:  q' = PITCH_AUTHORITY·elevator − PITCH_DAMPING·q − PITCH_STIFFNESS·θ   θ' = q
 *   speed:  V' = (V_MIN + (V_MAX − V_MIN)·throttle − V) / SPEED_TAU − g·sin θ
 *   turn:   ψ' = g·tan φ / V  (coordinated)      climb: h' = V·sin θ
 *   ground: east' = V·cos θ·sin ψ,  north' = V·cos θ·cos ψ
 * </pre>
 * Angles in radians inside; heading ψ clockwise from north. Altitude is kept at or above 0 (the
 * model has no crash). What the sensors report: the accelerometer measures gravity in the body
 * frame only ({@code ax = −g·sin θ, ay = g·cos θ·sin φ, az = g·cos θ·cos φ}): the model leaves out
 * the centripetal and linear accelerations, so the accelerometer acts as the attitude reference
 * (as Paparazzi's infrared horizon sensors, which jPapaBench simulates, measure roll and pitch
 * directly); the gyroscope measures the Euler rates (φ', θ', ψ'), the convention of the runtime's
 * orientation fusion. Allocation-free.
 */
public final class Aircraft {
    public static final double G = 9.80665;
    static final double ROLL_AUTHORITY = 6.0;   // rad/s² at full aileron
    static final double ROLL_DAMPING = 3.0;     // 1/s
    static final double PITCH_AUTHORITY = 4.0;  // rad/s² at full elevator
    static final double PITCH_DAMPING = 3.0;    // 1/s
    static final double PITCH_STIFFNESS = 2.0;  // 1/s² (static stability: the nose returns to level)
    static final double V_MIN = 8.0;            // m/s at idle
    static final double V_MAX = 24.0;           // m/s at full throttle
    static final double SPEED_TAU = 2.0;        // s
    static final double MIN_SPEED = 5.0;        // m/s (the model does not stall)

    private double east;
    private double north;
    private double altitude;
    private double heading;
    private double roll;
    private double pitch;
    private double rollRate;
    private double pitchRate;
    private double headingRate;
    private double speed;

    /** An aircraft at {@code east, north, altitude} (m), flying level on {@code headingDeg} at {@code speed} m/s. */
    public Aircraft(double east, double north, double altitude, double headingDeg, double speed) {
        this.east = east;
        this.north = north;
        this.altitude = altitude;
        this.heading = Math.toRadians(headingDeg);
        this.speed = speed;
    }

    /** Advances the model by {@code dt} seconds under the given servo deflections (clamped to their ranges). */
    public void step(double dt, double aileron, double elevator, double throttle) {
        aileron = Laws.clamp(aileron, -1, 1);
        elevator = Laws.clamp(elevator, -1, 1);
        throttle = Laws.clamp(throttle, 0, 1);
        rollRate += (ROLL_AUTHORITY * aileron - ROLL_DAMPING * rollRate) * dt;
        roll += rollRate * dt;
        roll = Laws.clamp(roll, -Math.toRadians(80), Math.toRadians(80));
        pitchRate += (PITCH_AUTHORITY * elevator - PITCH_DAMPING * pitchRate - PITCH_STIFFNESS * pitch) * dt;
        pitch += pitchRate * dt;
        pitch = Laws.clamp(pitch, -Math.toRadians(60), Math.toRadians(60));
        speed += ((V_MIN + (V_MAX - V_MIN) * throttle - speed) / SPEED_TAU - G * Math.sin(pitch)) * dt;
        speed = Math.max(MIN_SPEED, speed);
        headingRate = G * Math.tan(roll) / speed;
        heading += headingRate * dt;
        heading = heading % (2 * Math.PI);
        if (heading < 0) {
            heading += 2 * Math.PI;
        }
        double ground = speed * Math.cos(pitch);
        east += ground * Math.sin(heading) * dt;
        north += ground * Math.cos(heading) * dt;
        altitude = Math.max(0, altitude + speed * Math.sin(pitch) * dt);
    }

    public double east() { return east; }
    public double north() { return north; }
    public double altitude() { return altitude; }
    /** Heading (= course over ground: no wind) in degrees, [0, 360). */
    public double headingDeg() { return Math.toDegrees(heading); }
    public double rollDeg() { return Math.toDegrees(roll); }
    public double pitchDeg() { return Math.toDegrees(pitch); }
    public double rollRateDegS() { return Math.toDegrees(rollRate); }
    public double pitchRateDegS() { return Math.toDegrees(pitchRate); }
    public double speed() { return speed; }
    public double groundSpeed() { return speed * Math.cos(pitch); }
    public double climb() { return speed * Math.sin(pitch); }

    // What the sensors measure (SI units; the simulator scales them to the input devices' units).
    public double accelX() { return -G * Math.sin(pitch); }
    public double accelY() { return G * Math.cos(pitch) * Math.sin(roll); }
    public double accelZ() { return G * Math.cos(pitch) * Math.cos(roll); }
    public double gyroX() { return rollRate; }
    public double gyroY() { return pitchRate; }
    public double gyroZ() { return headingRate; }
}
