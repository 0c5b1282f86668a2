package org.rtdroid.logic.papabench;

/**
 * The 14 tasks' releases on one thread, their links as newest-value variables: what a version
 * that runs every task on one thread needs (the Android version on its main looper), and, through
 * {@link #fly}, a cyclic executive of 1 ms frames (each task at its period and offset, in priority
 * order within a frame) that flies the flight without any runtime. The radio fields are the ground
 * station's requests (a new {@code radioSeq} is a new one). A release allocates nothing.
 */
public class Flight {
    public final Aircraft aircraft = new Aircraft(0, 0, 80, 0, 16);
    public final FlyByWire fbw = new FlyByWire();
    public final Autopilot ap = new Autopilot();
    // links
    double servoAileron, servoElevator, servoThrottle = Autopilot.CRUISE_THROTTLE;
    boolean commandFresh;
    int commandMode;
    double commandAileron, commandElevator, commandThrottle;
    long radioSeq;
    int radioMode;
    double radioRoll, radioPitch, radioThrottle;
    long toAutopilotSeq;
    int toAutopilotMode;
    double toAutopilotRoll, toAutopilotPitch, toAutopilotThrottle;
    boolean toAutopilotFailsafe;
    boolean gpsFresh;
    final double[] fix = new double[6];
    long ms;
    private final Task[] byPriority = Task.values().clone();

    public Flight() {
        java.util.Arrays.sort(byPriority, (a, b) -> b.priority - a.priority);
    }

    /** One release of task {@code t}. */
    public void run(Task t) {
        switch (t) {
            case FLIGHT_MODEL:
                aircraft.step(t.periodMillis / 1000.0, servoAileron, servoElevator, servoThrottle);
                break;
            case IR:
                ap.attitude(aircraft.rollDeg(), aircraft.pitchDeg(), aircraft.rollRateDegS(), aircraft.pitchRateDegS());
                break;
            case GPS:
                fix[0] = aircraft.east();
                fix[1] = aircraft.north();
                fix[2] = aircraft.altitude();
                fix[3] = aircraft.headingDeg();
                fix[4] = aircraft.groundSpeed();
                fix[5] = aircraft.climb();
                gpsFresh = true;
                break;
            case TEST_PPM:
                fbw.testPpm(radioSeq, radioMode, radioRoll, radioPitch, radioThrottle);
                break;
            case SEND_DATA_TO_AUTOPILOT:
                toAutopilotSeq = fbw.radioSeq();
                toAutopilotMode = fbw.radioMode();
                toAutopilotRoll = fbw.rollStick();
                toAutopilotPitch = fbw.pitchStick();
                toAutopilotThrottle = fbw.throttleStick();
                toAutopilotFailsafe = fbw.failsafe();
                break;
            case CHECK_FAILSAFE:
                fbw.checkFailsafe();
                break;
            case CHECK_MEGA128_VALUES:
                fbw.checkMega128Values(commandFresh, commandMode, commandAileron, commandElevator, commandThrottle);
                commandFresh = false;
                servoAileron = fbw.aileron();
                servoElevator = fbw.elevator();
                servoThrottle = fbw.throttle();
                break;
            case RADIO_CONTROL:
                ap.radioControl(toAutopilotSeq, toAutopilotMode, toAutopilotRoll, toAutopilotPitch, toAutopilotThrottle,
                        toAutopilotFailsafe);
                break;
            case STABILIZATION:
                ap.stabilization();
                break;
            case LINK_FBW_SEND:
                commandFresh = true;
                commandMode = ap.commandMode();
                commandAileron = ap.aileron();
                commandElevator = ap.elevator();
                commandThrottle = ap.throttle();
                break;
            case REPORTING:
                break;
            case NAVIGATION:
                if (gpsFresh) {
                    ap.navigation(fix[0], fix[1], fix[2], fix[3], fix[4], fix[5]);
                    gpsFresh = false;
                }
                break;
            case ALTITUDE_CONTROL:
                ap.altitudeControl();
                break;
            case CLIMB_CONTROL:
                ap.climbControl();
                break;
            default:
                throw new IllegalArgumentException(t.name());
        }
    }

    /** Flies {@code millis} more milliseconds: each 1 ms frame releases its tasks, higher priority first. */
    public void fly(long millis) {
        for (long end = ms + millis; ms < end; ms++) {
            for (Task t : byPriority) {
                if (ms % t.periodMillis == t.offsetMillis) {
                    run(t);
                }
            }
        }
    }
}
