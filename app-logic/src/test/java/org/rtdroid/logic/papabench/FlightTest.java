package org.rtdroid.logic.papabench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The 14 tasks' laws in a cyclic executive of 1 ms frames (each task at its period and offset, in
 * priority order within a frame), their links as newest-value variables: the flight the app's
 * versions fly, without any runtime. The RTDroid app's own test flies it through the runtime.
 */
class FlightTest {
    final Aircraft aircraft = new Aircraft(0, 0, 80, 0, 16);
    final FlyByWire fbw = new FlyByWire();
    final Autopilot ap = new Autopilot();
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
    double[] fix = new double[6];
    long ms;

    void run(Task t) {
        switch (t) {
            case FLIGHT_MODEL:
                aircraft.step(t.periodMillis / 1000.0, servoAileron, servoElevator, servoThrottle);
                break;
            case IR:
                ap.attitude(aircraft.rollDeg(), aircraft.pitchDeg(), aircraft.rollRateDegS(), aircraft.pitchRateDegS());
                break;
            case GPS:
                fix = new double[] {aircraft.east(), aircraft.north(), aircraft.altitude(), aircraft.headingDeg(),
                    aircraft.groundSpeed(), aircraft.climb()};
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
                throw new AssertionError(t);
        }
    }

    void fly(long millis) {
        Task[] byPriority = Task.values().clone();
        java.util.Arrays.sort(byPriority, (a, b) -> b.priority - a.priority);
        for (long end = ms + millis; ms < end; ms++) {
            for (Task t : byPriority) {
                if (ms % t.periodMillis == t.offsetMillis) {
                    run(t);
                }
            }
        }
    }

    @Test
    void theTaskSetIsJPapaBenchs() {
        assertEquals(14, Task.values().length);
        int[] perModule = new int[3];
        for (Task t : Task.values()) {
            perModule[t.module.ordinal()]++;
            assertTrue(t.offsetMillis < t.periodMillis, t.name());
        }
        assertEquals(3, perModule[Task.Module.SIMULATOR.ordinal()]);
        assertEquals(4, perModule[Task.Module.FLY_BY_WIRE.ordinal()]);
        assertEquals(7, perModule[Task.Module.AUTOPILOT.ordinal()]);
        assertEquals(50, Task.STABILIZATION.periodMillis);
        assertEquals(25, Task.RADIO_CONTROL.periodMillis);
        assertEquals(250, Task.NAVIGATION.periodMillis);
    }

    @Test
    void fliesTheFlightPlanHomeAndHoldsItsAltitudeThenObeysTheRadio() {
        long waypoint1At = -1;
        while (ms < 120_000 && ap.mode() != Modes.HOME) {
            fly(250);
            if (waypoint1At < 0 && ap.waypoint() == 1) {
                waypoint1At = ms;
            }
        }
        assertTrue(waypoint1At > 0, "waypoint 0 reached: " + ap.east() + ", " + ap.north());
        assertEquals(Modes.HOME, ap.mode(), "the flight plan flown by " + ms + " ms");
        assertTrue(ms < 90_000, "flown in " + ms + " ms");
        fly(20_000);
        assertEquals(100, aircraft.altitude(), 10, "holds the flight plan's altitude");
        assertTrue(Math.hypot(aircraft.east(), aircraft.north()) < 2 * Autopilot.CIRCLE_RADIUS_M, "circles home");
        assertTrue(!fbw.failsafe() && !ap.fbwFailsafe(), "the link held");
        // AUTO1 with the sticks centred: wings level, nose level
        radioSeq = 1;
        radioMode = Modes.AUTO1;
        radioThrottle = 0.5;
        fly(5_000);
        assertEquals(Modes.AUTO1, ap.mode());
        assertEquals(-1, ap.waypoint());
        assertEquals(0, aircraft.rollDeg(), 3, "wings level");
        assertEquals(0, aircraft.pitchDeg(), 3, "nose level");
        // a bad request is refused and counted; the mode stays
        radioSeq = 2;
        radioMode = 9;
        fly(200);
        assertEquals(1, ap.modeRequestsRefused());
        assertEquals(Modes.AUTO1, ap.mode());
    }

    @Test
    void losingTheAutopilotsCommandsIsFailsafe() {
        fly(2_000);
        assertTrue(!fbw.failsafe());
        for (int i = 0; i <= FlyByWire.FAILSAFE_CHECKS; i++) {
            fbw.checkFailsafe();
        }
        assertTrue(fbw.failsafe());
        fbw.checkMega128Values(false, 0, 0, 0, 0);
        assertEquals(FlyByWire.FAILSAFE_THROTTLE, fbw.throttle(), 1e-9);
        fbw.checkMega128Values(true, Modes.AUTO2, 0.1, 0.1, 0.6);
        assertTrue(!fbw.failsafe());
        assertEquals(0.6, fbw.throttle(), 1e-9);
    }
}
