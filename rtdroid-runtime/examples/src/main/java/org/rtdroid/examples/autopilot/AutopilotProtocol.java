package org.rtdroid.examples.autopilot;

import org.rtdroid.contract.autopilot.Autopilot;

/**
 * The autopilot app's RT-internal channels, actions and record layouts (little-endian), and its
 * modes. What crosses to the Android cell (POSITION out, SET_MODE in, the modes) is the app's
 * contract, {@code bridge/contracts/autopilot.proto} ({@link Autopilot}).
 *
 * <pre>
 *   AutopilotService ──autopilot.commands──▶ FlyByWireService ──autopilot.servos──▶ FlightSimulatorService
 *          ▲        ◀──autopilot.fbw-status──        ▲                                     │
 *          │                                          └── orientation, gyroscope ◀── input devices ◀┘
 *          └──────────────── autopilot.gps ◀──────────────────────────────────────────────┘
 *   AutopilotService ──autopilot.position──▶ Android (AutopilotMonitor); ◀──autopilot.control── Android / tools
 * </pre>
 */
public final class AutopilotProtocol {
    private AutopilotProtocol() {}

    public static final String COMMANDS_CHANNEL = "autopilot.commands";
    public static final String FBW_STATUS_CHANNEL = "autopilot.fbw-status";
    public static final String SERVOS_CHANNEL = "autopilot.servos";
    public static final String GPS_CHANNEL = "autopilot.gps";

    public static final String ACTION_COMMAND = "org.rtdroid.autopilot.COMMAND";
    public static final String ACTION_FBW_STATUS = "org.rtdroid.autopilot.FBW_STATUS";
    public static final String ACTION_SERVOS = "org.rtdroid.autopilot.SERVOS";
    public static final String ACTION_GPS = "org.rtdroid.autopilot.GPS";
    public static final String SENDER = "rtdroid.autopilot";

    // Modes (Paparazzi's, which jPapaBench mirrors): the contract's enum Mode.
    /** The pilot's sticks drive the servos directly (the fly-by-wire passes them through). */
    public static final int MODE_MANUAL = Autopilot.MODE_MANUAL;
    /** Stabilised: the sticks set roll and pitch angles, the fly-by-wire holds them. */
    public static final int MODE_AUTO1 = Autopilot.MODE_AUTO1;
    /** Autonomous: the autopilot flies the flight plan's waypoints at their altitudes. */
    public static final int MODE_AUTO2 = Autopilot.MODE_AUTO2;
    /** Return to the home waypoint and circle it (also where AUTO2 ends after the last waypoint). */
    public static final int MODE_HOME = Autopilot.MODE_HOME;

    /** "MANUAL", "AUTO1", "AUTO2", "HOME", or null for another value. */
    public static String modeName(int mode) {
        return switch (mode) {
            case MODE_MANUAL -> "MANUAL";
            case MODE_AUTO1 -> "AUTO1";
            case MODE_AUTO2 -> "AUTO2";
            case MODE_HOME -> "HOME";
            default -> null;
        };
    }

    /**
     * COMMAND (autopilot → fly-by-wire, every 50 ms): i32 mode, f32 a, f32 b, f32 throttle (0..1).
     * MANUAL: a, b are the aileron and elevator deflections (-1..1); otherwise the roll and pitch
     * set-points in degrees.
     */
    public static final int COMMAND_BYTES = 16;
    public static final int COMMAND_MODE_OFFSET = 0;
    public static final int COMMAND_A_OFFSET = 4;
    public static final int COMMAND_B_OFFSET = 8;
    public static final int COMMAND_THROTTLE_OFFSET = 12;

    /** SERVOS (fly-by-wire → simulator, every 25 ms): f32 aileron, f32 elevator (-1..1), f32 throttle (0..1). */
    public static final int SERVOS_BYTES = 12;
    public static final int SERVOS_AILERON_OFFSET = 0;
    public static final int SERVOS_ELEVATOR_OFFSET = 4;
    public static final int SERVOS_THROTTLE_OFFSET = 8;

    /**
     * FBW_STATUS (fly-by-wire → autopilot, every 25 ms): f32 roll, f32 pitch (degrees, from the
     * orientation sensor), f32 aileron, f32 elevator, f32 throttle, i32 failsafe (1: no command
     * from the autopilot for {@link Stabiliser#FAILSAFE_RELEASES} releases).
     */
    public static final int FBW_STATUS_BYTES = 24;
    public static final int FBW_ROLL_OFFSET = 0;
    public static final int FBW_PITCH_OFFSET = 4;
    public static final int FBW_AILERON_OFFSET = 8;
    public static final int FBW_ELEVATOR_OFFSET = 12;
    public static final int FBW_THROTTLE_OFFSET = 16;
    public static final int FBW_FAILSAFE_OFFSET = 20;

    /**
     * GPS fix (simulator → autopilot, every 250 ms): f32 east, f32 north, f32 altitude (m from
     * home), f32 course (degrees clockwise from north, 0..360), f32 ground speed (m/s), f32 climb (m/s).
     */
    public static final int GPS_BYTES = 24;
    public static final int GPS_EAST_OFFSET = 0;
    public static final int GPS_NORTH_OFFSET = 4;
    public static final int GPS_ALTITUDE_OFFSET = 8;
    public static final int GPS_COURSE_OFFSET = 12;
    public static final int GPS_SPEED_OFFSET = 16;
    public static final int GPS_CLIMB_OFFSET = 20;
}
