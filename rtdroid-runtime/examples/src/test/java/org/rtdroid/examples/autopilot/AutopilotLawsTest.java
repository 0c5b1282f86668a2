package org.rtdroid.examples.autopilot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rtdroid.examples.autopilot.AutopilotProtocol.*;

import org.junit.jupiter.api.Test;

/**
 * The autopilot's control laws and navigation against known inputs, and the three of them with the
 * aircraft model in a closed loop in simulated time (the periods of the app: aircraft 10 ms,
 * stabilisation 25 ms, control 50 ms, navigation 250 ms). No threads, no clocks.
 */
class AutopilotLawsTest {

    @Test
    void stabiliserIsAProportionalDerivativeLawPerAxis() {
        Stabiliser s = new Stabiliser();
        s.command(MODE_AUTO2, 10, 5, 0.6);
        s.step(0, 0, 0, 0);
        assertEquals(Stabiliser.K_ROLL * 10, s.aileron(), 1e-12);
        assertEquals(Stabiliser.K_PITCH * 5, s.elevator(), 1e-12);
        assertEquals(0.6, s.throttle(), 1e-12);
        s.command(MODE_AUTO2, 10, 5, 0.6);
        s.step(4, 2, 20, -10);
        assertEquals(Stabiliser.K_ROLL * 6 - Stabiliser.K_ROLL_RATE * 20, s.aileron(), 1e-12);
        assertEquals(Stabiliser.K_PITCH * 3 + Stabiliser.K_PITCH_RATE * 10, s.elevator(), 1e-12);
        // set-points beyond the limits are clamped, deflections saturate at ±1
        s.command(MODE_AUTO1, 90, -90, 2);
        s.step(0, 0, 0, 0);
        assertEquals(Math.min(1, Stabiliser.K_ROLL * Stabiliser.MAX_ROLL_DEG), s.aileron(), 1e-12);
        assertEquals(-Stabiliser.K_PITCH * Stabiliser.MAX_PITCH_DEG, s.elevator(), 1e-12);
        assertEquals(1.0, s.throttle(), 1e-12);
    }

    @Test
    void manualPassesTheSticksThroughAndALostLinkIsFailsafe() {
        Stabiliser s = new Stabiliser();
        s.step(20, 0, 0, 0);
        assertTrue(s.failsafe(), "no command yet");
        assertEquals(-Stabiliser.K_ROLL * 20, s.aileron(), 1e-12, "failsafe levels the wings");
        assertEquals(Stabiliser.FAILSAFE_THROTTLE, s.throttle(), 1e-12);
        s.command(MODE_MANUAL, 0.25, -0.5, 0.75);
        s.step(20, 10, 5, 5);
        assertFalse(s.failsafe());
        assertEquals(0.25, s.aileron(), 1e-12);
        assertEquals(-0.5, s.elevator(), 1e-12);
        assertEquals(0.75, s.throttle(), 1e-12);
        for (int i = 1; i < Stabiliser.FAILSAFE_RELEASES; i++) {
            s.step(20, 10, 5, 5);
            assertFalse(s.failsafe(), "release " + i + " without a command");
        }
        s.step(20, 10, 5, 5);
        assertTrue(s.failsafe());
        s.command(99, 0, 0, 0); // an unknown mode is not a command
        s.step(20, 10, 5, 5);
        assertTrue(s.failsafe());
    }

    @Test
    void navigatorSteersTowardTheWaypointAndHoldsAltitude() {
        Navigator n = new Navigator(MODE_AUTO2);
        n.control();
        assertEquals(0, n.commandA(), "no fix yet: wings level");
        // at home, heading north; the first waypoint is due north, 20 m above
        n.navigate(0, 0, 80, 0, 16, 0);
        assertEquals(0, n.waypoint());
        assertEquals(0, n.desiredCourse(), 1e-9);
        assertEquals(100, n.desiredAltitude(), 1e-9);
        assertEquals(150, n.distanceToTarget(), 1e-9);
        n.control();
        assertEquals(0, n.commandA(), 1e-9);
        assertEquals(Navigator.MAX_PITCH_SETPOINT_DEG, n.commandB(), 1e-9, "20 m low: climb at the limit");
        assertTrue(n.commandThrottle() > 0.5);
        // heading east instead: the waypoint is 90° to the left, roll left at the limit
        n.navigate(0, 0, 100, 90, 16, 0);
        n.control();
        assertEquals(-Navigator.MAX_ROLL_SETPOINT_DEG, n.commandA(), 1e-9);
        assertEquals(0, n.commandB(), 1e-9, "on altitude, level");
        // 10° right of the course: a small left roll
        n.navigate(0, 0, 100, 10, 16, 0);
        n.control();
        assertEquals(-6, n.commandA(), 1e-9);
    }

    @Test
    void reachingTheLastWaypointTurnsHomeAndTheSticksRuleInManualAndAuto1() {
        Navigator n = new Navigator(MODE_AUTO2);
        n.navigate(0, 140, 100, 0, 16, 0);
        assertEquals(1, n.waypoint(), "within the arrival radius of waypoint 0: on to waypoint 1");
        assertEquals(Navigator.bearing(0, 140, 150, 150), n.desiredCourse(), 1e-9);
        assertEquals(86.19, n.desiredCourse(), 0.01);
        n.navigate(140, 150, 100, 90, 16, 0);
        assertEquals(MODE_HOME, n.mode());
        assertEquals(-1, n.waypoint());
        assertEquals(Math.hypot(140, 150), n.distanceToTarget(), 1e-9);
        // far from home: straight at it
        assertEquals(Navigator.bearing(140, 150, 0, 0), n.desiredCourse(), 1e-9);
        // on the circle, south of home: fly west (clockwise)
        n.navigate(0, -Navigator.CIRCLE_RADIUS_M, 100, 270, 16, 0);
        assertEquals(270, n.desiredCourse(), 1e-9);
        assertFalse(n.setMode(7, 0, 0, 0));
        assertFalse(n.setMode(MODE_MANUAL, 1.5, 0, 0));
        assertFalse(n.setMode(MODE_MANUAL, 0, Double.NaN, 0));
        assertEquals(MODE_HOME, n.mode());
        assertTrue(n.setMode(MODE_MANUAL, 0.5, -0.25, 0.7));
        n.control();
        assertEquals(0.5, n.commandA());
        assertEquals(-0.25, n.commandB());
        assertEquals(0.7, n.commandThrottle());
        assertTrue(n.setMode(MODE_AUTO1, 0.5, -0.5, 0.4));
        n.control();
        assertEquals(0.5 * Stabiliser.MAX_ROLL_DEG, n.commandA());
        assertEquals(-0.5 * Stabiliser.MAX_PITCH_DEG, n.commandB());
        assertTrue(n.setMode(MODE_AUTO2, 0, 0, 0.5));
        n.navigate(0, 0, 100, 0, 16, 0);
        assertEquals(0, n.waypoint(), "a finished flight plan starts again");
    }

    @Test
    void aircraftTurnsClimbsAndReportsGravityAndRatesLikeTheSensors() {
        Aircraft a = new Aircraft(0, 0, 100, 0, 16);
        for (int i = 0; i < 100; i++) {
            a.step(0.01, 0, 0, 0.5);
        }
        assertEquals(0, a.east(), 1e-9, "straight north");
        assertEquals(16, a.north(), 1e-6);
        assertEquals(100, a.altitude(), 1e-9);
        assertEquals(0, a.accelX(), 1e-12);
        assertEquals(Aircraft.G, a.accelZ(), 1e-12);
        for (int i = 0; i < 50; i++) {
            a.step(0.01, 0.3, 0.2, 0.5);
        }
        assertTrue(a.rollDeg() > 5 && a.pitchDeg() > 2, "right aileron and up elevator: " + a.rollDeg() + "°, " + a.pitchDeg() + "°");
        assertTrue(a.gyroX() > 0 && a.gyroZ() > 0, "rolling right, turning right");
        assertEquals(a.rollDeg(), Math.toDegrees(Math.atan2(a.accelY(), a.accelZ())), 1e-9, "roll from gravity");
        assertEquals(a.pitchDeg(), Math.toDegrees(Math.atan2(-a.accelX(), Math.hypot(a.accelY(), a.accelZ()))), 1e-9);
        assertTrue(a.altitude() > 100 && a.headingDeg() > 0 && a.headingDeg() < 90);
    }

    /** The whole loop in simulated time: the flight plan is flown, then the aircraft circles home. */
    @Test
    void closedLoopFliesTheFlightPlanAndCirclesHome() {
        Flight f = new Flight(MODE_AUTO2);
        int reachedAt = -1;
        for (int t = 0; t < 60_000 && f.nav.mode() == MODE_AUTO2; t += 10) {
            f.tick(t);
            if (f.nav.waypointsReached() == 1 && reachedAt < 0) {
                reachedAt = t;
                assertEquals(100, f.plane.altitude(), 8, "climbed to waypoint 0's altitude");
            }
        }
        assertTrue(reachedAt > 0, "waypoint 0 reached");
        assertEquals(MODE_HOME, f.nav.mode(), "the flight plan ends in HOME");
        assertEquals(100, f.plane.altitude(), 8);
        // two minutes later it circles home, on altitude, wings not level (turning)
        double maxDistance = 0;
        double minDistance = Double.MAX_VALUE;
        double maxAltError = 0;
        for (int t = 0; t < 120_000; t += 10) {
            f.tick(t);
            if (t >= 60_000) {
                double d = Math.hypot(f.plane.east(), f.plane.north());
                maxDistance = Math.max(maxDistance, d);
                minDistance = Math.min(minDistance, d);
                maxAltError = Math.max(maxAltError, Math.abs(f.plane.altitude() - Navigator.HOME_ALTITUDE_M));
            }
        }
        assertTrue(minDistance > Navigator.CIRCLE_RADIUS_M * 0.5 && maxDistance < Navigator.CIRCLE_RADIUS_M * 1.6,
                "circles home: distance " + minDistance + ".." + maxDistance);
        assertTrue(maxAltError < 5, "holds the altitude: error up to " + maxAltError);
    }

    @Test
    void auto1WithCentredSticksLevelsTheWings() {
        Flight f = new Flight(MODE_AUTO1);
        f.nav.setMode(MODE_AUTO1, 0, 0, 0.5);
        f.plane.step(0.01, 1, 0, 0.5);
        for (int i = 0; i < 10; i++) {
            f.plane.step(0.01, 1, 0, 0.5); // a gust: 20°+ of roll
        }
        for (int t = 0; t < 5_000; t += 10) {
            f.tick(t);
        }
        assertEquals(0, f.plane.rollDeg(), 1);
        assertEquals(0, f.plane.pitchDeg(), 1);
    }

    /** The app's loops at their periods, attitude measured exactly (the sensor path is the integration test's). */
    static final class Flight {
        final Aircraft plane = new Aircraft(0, 0, 80, 0, 16);
        final Stabiliser fbw = new Stabiliser();
        final Navigator nav;

        Flight(int mode) {
            nav = new Navigator(mode);
        }

        void tick(int ms) {
            if (ms % 250 == 0) {
                nav.navigate(plane.east(), plane.north(), plane.altitude(), plane.headingDeg(), plane.groundSpeed(), plane.climb());
            }
            if (ms % 50 == 0) {
                nav.control();
                fbw.command(nav.commandMode(), nav.commandA(), nav.commandB(), nav.commandThrottle());
            }
            if (ms % 25 == 0) {
                fbw.step(plane.rollDeg(), plane.pitchDeg(), plane.rollRateDegS(), plane.pitchRateDegS());
            }
            plane.step(0.01, fbw.aileron(), fbw.elevator(), fbw.throttle());
        }
    }
}
