package org.rtdroid.logic.papabench;

/**
 * jPapaBench's 14 periodic tasks (PapaBench, Nemer et al., WCET 2006; jPapaBench's task set), with
 * their modules and periods, said once for every version of the app: the RTDroid manifest declares
 * them (a test holds it to this list), the RTSJ-style and Android versions start them from it.
 * {@code offsetMillis} phases the tasks within their period so that data flows through one cycle in
 * order (sensors, then the laws, then the link, then the servos); {@code priority} is
 * rate-monotonic (shorter period, higher), then by that order; the RTDroid app's two SPI receivers
 * both take 75 (after sendDataToAutopilot, above every 50 ms task: beside the cochlear implant a
 * lower one would not receive within its frames' minimum inter-arrival time).
 */
public enum Task {
    // simulator: the aircraft, its infrared attitude sensors and its GPS
    FLIGHT_MODEL(Module.SIMULATOR, "flightModel", 25, 0, 79),
    IR(Module.SIMULATOR, "ir", 50, 1, 74),
    GPS(Module.SIMULATOR, "gps", 250, 2, 67),
    // fly-by-wire: the radio, the link to the autopilot, the servos
    TEST_PPM(Module.FLY_BY_WIRE, "testPpm", 25, 5, 78),
    SEND_DATA_TO_AUTOPILOT(Module.FLY_BY_WIRE, "sendDataToAutopilot", 25, 6, 77),
    CHECK_FAILSAFE(Module.FLY_BY_WIRE, "checkFailsafe", 50, 7, 70),
    CHECK_MEGA128_VALUES(Module.FLY_BY_WIRE, "checkMega128Values", 50, 14, 69),
    // autopilot: radio commands, stabilisation, the link, reporting, navigation and its control loops
    RADIO_CONTROL(Module.AUTOPILOT, "radioControl", 25, 8, 76),
    STABILIZATION(Module.AUTOPILOT, "stabilization", 50, 10, 73),
    LINK_FBW_SEND(Module.AUTOPILOT, "linkFbwSend", 50, 12, 72),
    REPORTING(Module.AUTOPILOT, "reporting", 100, 16, 68),
    NAVIGATION(Module.AUTOPILOT, "navigation", 250, 20, 66),
    ALTITUDE_CONTROL(Module.AUTOPILOT, "altitudeControl", 250, 22, 65),
    CLIMB_CONTROL(Module.AUTOPILOT, "climbControl", 250, 24, 64);

    /** The three modules, which share nothing but their links. */
    public enum Module { SIMULATOR, FLY_BY_WIRE, AUTOPILOT }

    public final Module module;
    /** The task's name in every version (the manifest's periodic-task name). */
    public final String taskName;
    public final int periodMillis;
    public final int offsetMillis;
    public final int priority;

    Task(Module module, String taskName, int periodMillis, int offsetMillis, int priority) {
        this.module = module;
        this.taskName = taskName;
        this.periodMillis = periodMillis;
        this.offsetMillis = offsetMillis;
        this.priority = priority;
    }
}
