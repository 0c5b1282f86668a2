package org.rtdroid.logic.papabench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The 14 tasks' laws in {@link Flight}'s cyclic executive: the flight the app's versions fly,
 * without any runtime. The RTDroid app's own test flies it through the runtime.
 */
class FlightTest extends Flight {
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
