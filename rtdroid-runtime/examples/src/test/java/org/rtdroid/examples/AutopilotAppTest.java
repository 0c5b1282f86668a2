package org.rtdroid.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rtdroid.examples.autopilot.AutopilotProtocol.*;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rtdroid.contract.autopilot.Autopilot;
import org.rtdroid.contract.autopilot.Autopilot.SetMode;
import org.rtdroid.contract.autopilot.AutopilotCodec;
import org.rtdroid.examples.autopilot.AutopilotService;
import org.rtdroid.examples.autopilot.FlightSimulatorService;
import org.rtdroid.examples.autopilot.FlyByWireService;
import org.rtdroid.examples.autopilot.SpiFromAutopilot;
import org.rtdroid.examples.autopilot.SpiFromFlyByWire;
import org.rtdroid.logic.papabench.Task;
import org.rtdroid.runtime.boot.DeployedApp;
import org.rtdroid.runtime.boot.ServiceStatus;
import org.rtdroid.runtime.boot.RuntimeHost;
import org.rtdroid.runtime.sensor.InputDeviceLocator;
import org.rtdroid.runtime.sensor.Sensor;
import org.rtdroid.runtime.sensor.sim.FifoInputRoot;
import org.rtdroid.runtime.validation.Cell;
import org.rtdroid.runtime.validation.ModelBuilder;
import org.rtdroid.runtime.validation.ReportText;
import org.rtdroid.runtime.validation.SystemModel;
import org.rtdroid.runtime.validation.ValidateMain;
import org.rtdroid.runtime.validation.Validation;
import org.rtdroid.runtime.validation.ValidationReport;
import org.rtdroid.runtime.xcc.CrossContextEndpoint;
import org.rtdroid.runtime.xcc.CrossContextIntent;

/**
 * The autopilot app (jPapaBench's 14 tasks) from its shipped manifest in a real RuntimeHost, the
 * loop closed through the real sensor path: the simulator writes kernel-format input records into FIFOs that stand in for
 * the accelerometer's and gyroscope's /dev/input/eventN (this host has no uinput; a directory tree
 * named by {@link InputDeviceLocator#INPUT_ROOT_PROPERTY} holds them), the SensorService's polling,
 * processing (orientation fusion) and lane threads deliver them to the autopilot, the SPI link's
 * two intent broadcast channels carry commands and radio between autopilot and fly-by-wire, and
 * message channels the servos and GPS. The verdicts are on
 * the flight (waypoints reached, altitude held, mode transitions), read from the position records
 * the autopilot publishes to the Android cell; the waits are hang detectors, never verdicts.
 */
class AutopilotAppTest {
    private static final long HANG_MS = 120_000;

    private RuntimeHost host;
    private FifoInputRoot devices;

    @AfterEach
    void tearDown() throws IOException {
        if (host != null) {
            host.shutdown();
        }
        if (devices != null) {
            devices.close();
        }
    }

    /** The manifest passes chapter 5's analysis on one CPU, with every task (and the sensor threads) modelled. */
    @Test
    void manifestValidates() throws Exception {
        byte[] xml = Files.readAllBytes(Path.of("src/main/manifests/autopilot/manifest.xml"));
        ValidationReport r = Validation.run(ModelBuilder.read("autopilot/manifest.xml", xml),
                new Cell("host", 1, 64L << 20, ValidateMain.DEFAULT_RUNTIME_RESERVED_BYTES));
        assertTrue(r.holds(), () -> ReportText.render(r));
        List<String> tasks = r.cpus().get(0).results().stream().map(x -> x.task().name()).toList();
        for (String t : List.of("sensor-poll", "sensor-gyroscope", "sensor-orientation")) {
            assertTrue(tasks.contains(t), t + " modelled: " + tasks);
        }
        for (Task t : Task.values()) {
            assertTrue(tasks.contains(t.taskName), t.taskName + " modelled: " + tasks);
        }
    }

    /** The manifest declares jPapaBench's 14 tasks with the periods, offsets and priorities every version runs. */
    @Test
    void manifestDeclaresJPapaBenchsTaskSet() throws Exception {
        var m = org.rtdroid.runtime.manifest.ManifestParser.parse("autopilot/manifest.xml",
                Files.newInputStream(Path.of("src/main/manifests/autopilot/manifest.xml")));
        List<org.rtdroid.runtime.manifest.PeriodicTaskDecl> declared = m.components().stream()
                .flatMap(c -> c.tasks().stream()).toList();
        assertEquals(Task.values().length, declared.size(), declared.toString());
        for (Task t : Task.values()) {
            var d = declared.stream().filter(x -> x.name().equals(t.taskName)).findFirst().orElseThrow();
            assertEquals(t.periodMillis * 1_000_000L, d.periodNanos(), t.taskName);
            assertEquals(t.offsetMillis * 1_000_000L, d.startNanos(), t.taskName);
            assertEquals(t.priority, d.priority(), t.taskName);
        }
    }

    /** Beside the cochlear implant (tighter deadlines, higher priorities) on one CPU, both still hold. */
    @Test
    void manifestValidatesBesideTheCochlearImplant() throws Exception {
        SystemModel both = SystemModel.union(List.of(
                ModelBuilder.read("autopilot/manifest.xml", Files.readAllBytes(Path.of("src/main/manifests/autopilot/manifest.xml"))),
                ModelBuilder.read("cochlear/manifest.xml", Files.readAllBytes(Path.of("src/main/manifests/cochlear/manifest.xml")))));
        ValidationReport r = Validation.run(both, new Cell("host", 1, 64L << 20, ValidateMain.DEFAULT_RUNTIME_RESERVED_BYTES));
        assertTrue(r.holds(), () -> ReportText.render(r));
    }

    /** One POSITION record as published. */
    record Position(long fixes, int mode, int waypoint, float east, float north, float altitude, float distance) {
        static Position of(CrossContextIntent i) {
            Autopilot.Position p = new Autopilot.Position();
            int r = p.decode(i.payload(), 0, i.payloadLength());
            assertEquals(AutopilotCodec.OK, r, AutopilotCodec.describe(r));
            return new Position(p.fixes(), p.mode(), p.waypoint(), p.east(), p.north(), p.altitude(), p.distance());
        }
    }

    private final List<Position> track = new ArrayList<>();

    /** Collects position records until one satisfies {@code done}; returns it. */
    private Position awaitPosition(String what, java.util.function.Predicate<Position> done) throws InterruptedException {
        CrossContextIntent out = new CrossContextIntent();
        long end = System.nanoTime() + HANG_MS * 1_000_000L;
        while (System.nanoTime() < end) {
            while (host.crossContext().pollOutbound(out)) {
                if (out.channelEquals(Autopilot.Position.CHANNEL) && out.actionEquals(Autopilot.Position.ACTION_POSITION)) {
                    Position p = Position.of(out);
                    track.add(p);
                    if (done.test(p)) {
                        return p;
                    }
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("timed out after " + HANG_MS + " ms waiting for: " + what + "; last "
                + (track.isEmpty() ? "none" : track.get(track.size() - 1)));
    }

    private static byte[] setMode(int mode, float roll, float pitch, float throttle) {
        byte[] b = new byte[SetMode.MAX_BYTES];
        return Arrays.copyOf(b, new SetMode().mode(mode).roll(roll).pitch(pitch).throttle(throttle).encode(b, 0));
    }

    @Test
    void closedLoopFliesTheFlightPlanThenObeysTheGroundStation() throws Exception {
        devices = FifoInputRoot.create("rtdroid-autopilot-");
        host = AppHarness.host();
        DeployedApp app = AppHarness.deploy(host, "autopilot");
        AutopilotService autopilot = (AutopilotService) app.component(AutopilotService.class.getName());
        FlyByWireService fbw = (FlyByWireService) app.component(FlyByWireService.class.getName());
        FlightSimulatorService sim = (FlightSimulatorService) app.component(FlightSimulatorService.class.getName());
        SpiFromAutopilot toFbw = (SpiFromAutopilot) app.component(SpiFromAutopilot.class.getName());
        SpiFromFlyByWire toAutopilot = (SpiFromFlyByWire) app.component(SpiFromFlyByWire.class.getName());
        assertEquals(1, app.sensorService().listeners(Sensor.TYPE_ORIENTATION));
        assertEquals(1, app.sensorService().listeners(Sensor.TYPE_GYROSCOPE));
        assertEquals(0, app.sensorService().listeners(Sensor.TYPE_ACCELEROMETER));

        // AUTO2: waypoint 0 (150 m north, 20 m above the start), then waypoint 1, then HOME.
        Position first = awaitPosition("a GPS fix navigated", p -> p.fixes() > 0);
        assertEquals(MODE_AUTO2, first.mode());
        assertEquals(0, first.waypoint());
        Position onLeg2 = awaitPosition("waypoint 1 as the target", p -> p.waypoint() == 1);
        assertEquals(MODE_AUTO2, onLeg2.mode());
        assertTrue(onLeg2.north() > 150 - org.rtdroid.logic.papabench.Autopilot.ARRIVAL_RADIUS_M - 20,
                "reached waypoint 0's neighbourhood: " + onLeg2);
        Position home = awaitPosition("HOME after the last waypoint", p -> p.mode() == MODE_HOME);
        assertEquals(-1, home.waypoint());
        assertTrue(home.east() > 100 && home.north() > 100, "at waypoint 1 (150, 150): " + home);
        assertEquals(100, home.altitude(), 10, "climbed 20 m and holds the flight plan's altitude: " + home);
        assertTrue(track.stream().allMatch(p -> p.mode() == MODE_AUTO2 || p.mode() == MODE_HOME), "no other mode on the way");
        assertTrue(autopilot.attitudeEvents() > 100, "the autopilot flew on the orientation sensor: " + autopilot.attitudeEvents());
        // its listener callbacks are counted in its status (`rt services`) beside its tasks' releases
        ServiceStatus apRow = app.statuses().stream().filter(r -> r.name().equals("autopilot/AutopilotService"))
                .findFirst().orElseThrow();
        assertTrue(apRow.worstResponseNanos() > 0 && apRow.execution().worstNanos() > 0, apRow.toString());
        assertTrue(app.sensorService().framesRead() > 200, "frames through the input devices: " + app.sensorService().framesRead());
        // every orientation delivery's times: written, read by the polling thread, delivered, in that order
        long[] times = new long[3];
        long n = autopilot.sensorDeliveries();
        assertTrue(autopilot.sensorDelivery(n - 1, times), "the last delivery is logged");
        assertTrue(times[0] <= times[1] && times[1] <= times[2], java.util.Arrays.toString(times));
        assertEquals(0, toFbw.malformed() + toAutopilot.malformed(), "the SPI frames arrive whole");
        assertTrue(!fbw.failsafe() && !autopilot.fbwFailsafe(), "the link between autopilot and fly-by-wire held");
        assertEquals(100, sim.altitude(), 10, "the simulated aircraft itself is on altitude");
        assertTrue(sim.steps() > 400, "the simulator ran: " + sim.steps() + " steps");

        // The ground station: a request from a sender the channel does not allow never arrives ...
        assertNotEquals(CrossContextEndpoint.DELIVERED, AppHarness.deliver(host, SetMode.CHANNEL, SetMode.ACTION_SET_MODE,
                "org.evil", 1, setMode(MODE_MANUAL, 0, 0, 0)));
        // ... a malformed one is refused and counted, the mode stays ...
        assertEquals(CrossContextEndpoint.DELIVERED, AppHarness.deliver(host, SetMode.CHANNEL, SetMode.ACTION_SET_MODE,
                "org.rtdroid.autopilot.monitor", 2, setMode(9, 0, 0, 0)));
        AppHarness.await("the bad mode refused", HANG_MS, () -> autopilot.modeRequestsRefused() == 1);
        assertEquals(1, fbw.radioRequests(), "the fly-by-wire's radio relayed it");
        assertEquals(MODE_HOME, autopilot.mode());
        // ... and AUTO1 with the sticks centred flies wings level, nose level.
        assertEquals(CrossContextEndpoint.DELIVERED, AppHarness.deliver(host, SetMode.CHANNEL, SetMode.ACTION_SET_MODE,
                "org.rtdroid.autopilot.monitor", 3, setMode(MODE_AUTO1, 0, 0, 0.5f)));
        Position auto1 = awaitPosition("AUTO1", p -> p.mode() == MODE_AUTO1);
        assertEquals(-1, auto1.waypoint());
        long fixesAtAuto1 = auto1.fixes();
        awaitPosition("3 s of AUTO1", p -> p.fixes() >= fixesAtAuto1 + 12);
        assertEquals(0, autopilot.roll(), 3, "wings level");
        assertEquals(0, autopilot.pitch(), 3, "nose level");
        assertEquals(MODE_AUTO1, fbw.mode(), "the command carried the mode down");

        host.undeploy("autopilot");
        assertEquals(0, app.sensorService().listeners(Sensor.TYPE_ORIENTATION));
    }
}
