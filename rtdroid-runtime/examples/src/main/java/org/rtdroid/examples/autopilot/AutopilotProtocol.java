package org.rtdroid.examples.autopilot;

import org.rtdroid.contract.autopilot.Autopilot;
import org.rtdroid.logic.papabench.Modes;

/**
 * The autopilot app's RT-internal channels, actions and record layouts (little-endian), and its
 * modes. What crosses to the Android cell (POSITION out, SET_MODE in, the modes) is the app's
 * contract, {@code bridge/contracts/autopilot.proto} ({@link Autopilot}).
 *
 * <pre>
 *   AutopilotService ══autopilot.spi.to-fbw══▶ SpiFromAutopilot ─▶ FlyByWireService ──autopilot.servos──▶ FlightSimulatorService
 *   AutopilotService ◀─ SpiFromFlyByWire ◀══autopilot.spi.to-autopilot══ FlyByWireService                      │
 *          ▲ orientation, gyroscope ◀── RT SensorManager ◀── input devices ◀── ir ◀─────────────────────────────┤
 *          └──────────────────────────── autopilot.gps ◀── gps ◀────────────────────────────────────────────────┘
 *   AutopilotService ──autopilot.position──▶ Android (AutopilotMonitor); Android / tools ──autopilot.control──▶ FlyByWireService
 * </pre>
 * ══ is an intent broadcast channel (rt-broadcast): the SPI link between the two microcontrollers
 * of jPapaBench, as the dissertation replaced it with intent broadcasts (4.5.2), received by a
 * real-time receiver of the other side ({@link SpiFromAutopilot}, {@link SpiFromFlyByWire}).
 */
public final class AutopilotProtocol {
    private AutopilotProtocol() {}

    public static final String TO_FBW_CHANNEL = "autopilot.spi.to-fbw";
    public static final String TO_AUTOPILOT_CHANNEL = "autopilot.spi.to-autopilot";
    public static final String SERVOS_CHANNEL = "autopilot.servos";
    public static final String GPS_CHANNEL = "autopilot.gps";

    public static final String ACTION_COMMAND = "org.rtdroid.autopilot.COMMAND";
    public static final String ACTION_FBW_DATA = "org.rtdroid.autopilot.FBW_DATA";
    public static final String ACTION_SERVOS = "org.rtdroid.autopilot.SERVOS";
    public static final String ACTION_GPS = "org.rtdroid.autopilot.GPS";
    public static final String SENDER = "rtdroid.autopilot";

    public static final int MODE_MANUAL = Autopilot.MODE_MANUAL;
    public static final int MODE_AUTO1 = Autopilot.MODE_AUTO1;
    public static final int MODE_AUTO2 = Autopilot.MODE_AUTO2;
    public static final int MODE_HOME = Autopilot.MODE_HOME;

    /** "MANUAL", "AUTO1", "AUTO2", "HOME", or null for another value. */
    public static String modeName(int mode) {
        return Modes.name(mode);
    }

    /**
     * COMMAND (autopilot → fly-by-wire, every 50 ms, linkFbwSend): i32 mode, f32 aileron, f32
     * elevator (-1..1), f32 throttle (0..1).
     */
    public static final int COMMAND_BYTES = 16;
    public static final int COMMAND_MODE_OFFSET = 0;
    public static final int COMMAND_AILERON_OFFSET = 4;
    public static final int COMMAND_ELEVATOR_OFFSET = 8;
    public static final int COMMAND_THROTTLE_OFFSET = 12;

    /**
     * FBW_DATA (fly-by-wire → autopilot, every 25 ms, sendDataToAutopilot): i64 radio request
     * number, i32 requested mode, f32 roll stick, f32 pitch stick (-1..1), f32 throttle stick
     * (0..1), i32 failsafe (1: no command from the autopilot for FlyByWire.FAILSAFE_CHECKS checks).
     */
    public static final int FBW_DATA_BYTES = 28;
    public static final int FBW_SEQ_OFFSET = 0;
    public static final int FBW_MODE_OFFSET = 8;
    public static final int FBW_ROLL_OFFSET = 12;
    public static final int FBW_PITCH_OFFSET = 16;
    public static final int FBW_THROTTLE_OFFSET = 20;
    public static final int FBW_FAILSAFE_OFFSET = 24;

    /** SERVOS (fly-by-wire → simulator, every 50 ms): f32 aileron, f32 elevator (-1..1), f32 throttle (0..1). */
    public static final int SERVOS_BYTES = 12;
    public static final int SERVOS_AILERON_OFFSET = 0;
    public static final int SERVOS_ELEVATOR_OFFSET = 4;
    public static final int SERVOS_THROTTLE_OFFSET = 8;

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
