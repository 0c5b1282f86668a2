package org.rtdroid.runtime.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.component.ComponentRuntime;
import org.rtdroid.runtime.component.PeriodicTask;
import org.rtdroid.runtime.component.PeriodicTaskRuntime;
import org.rtdroid.runtime.component.RealtimeReceiver;
import org.rtdroid.runtime.component.RealtimeService;
import org.rtdroid.runtime.alarm.AlarmManager;
import org.rtdroid.runtime.alarm.PendingIntent;
import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.validation.RuntimeServices;
import org.rtdroid.runtime.manifest.Manifest;
import org.rtdroid.runtime.manifest.ManifestParser;
import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.sensor.Sensor;
import org.rtdroid.runtime.sensor.SensorService;
import org.rtdroid.runtime.validation.Cell;
import org.rtdroid.runtime.validation.ModelBuilder;
import org.rtdroid.runtime.validation.SystemModel;
import org.rtdroid.runtime.validation.Validation;
import org.rtdroid.runtime.validation.ValidationReport;

/**
 * The partition the analysis assumes is the one the cell runs: on a two-CPU cell, two applications
 * of 6 ms every 10 ms cannot share a CPU, so the analysis places the second on CPU 1; the runtime
 * pins the threads of each component (its own thread and its periodic task's, its sensor listeners'
 * lane) to the CPU of its component, and each service thread (alarm, sensor polling and processing)
 * to its own, read back from the kernel by thread id. A CPU the kernel refuses fails the deployment
 * with the errno, before any release.
 */
class PartitionEnforcementTest {
    private RuntimeHost host;

    @AfterEach
    void tearDown() {
        if (host != null) {
            host.shutdown();
        }
    }

    /** A task that does nothing: the declared wcet (6 ms) is what the partition is computed from. */
    public static final class Worker extends RealtimeService {
        @Override
        public void onStartCommand() {
            registerTask("work", new PeriodicTask() {
                @Override
                public void onRelease() {}
            });
        }
    }

    private static String xml(String app) {
        return "<manifest>\n<application name=\"" + app + "\">\n<service name=\"" + Worker.class.getName()
                + "\" priority=\"20\"><memSizes total=\"24K\" persistent=\"8K\" release=\"8K\"/>"
                + "<periodic-task name=\"work\" wcet=\"6ms\"><memSizes release=\"8K\"/><release periodic=\"100ms\"/>"
                + "</periodic-task></service>\n</application>\n</manifest>\n";
    }

    private static SystemModel model(String app) throws Exception {
        return ModelBuilder.read(app + ".xml", xml(app).getBytes(StandardCharsets.UTF_8));
    }

    /** Deploys as the agent does: the manifest parsed, its analysis model built from the same bytes. */
    private DeployedApp deploy(String app, String xml) throws Exception {
        byte[] bytes = xml.getBytes(StandardCharsets.UTF_8);
        Manifest m = ManifestParser.parse(app + ".xml", new java.io.ByteArrayInputStream(bytes));
        return host.deploy(m, ModelBuilder.read(app + ".xml", bytes), getClass().getClassLoader());
    }

    private DeployedApp deploy(String app) throws Exception {
        return deploy(app, xml(app));
    }

    private static String heavy(String xml) {
        return xml.replace("periodic=\"100ms\"", "periodic=\"10ms\"");
    }

    private DeployedApp deployHeavy(String app) throws Exception {
        return deploy(app, heavy(xml(app)));
    }

    private static boolean twoCpus() {
        CpuSet allowed = Linux.currentAffinity();
        return allowed.contains(0) && allowed.contains(1);
    }

    @Test
    void eachComponentsThreadsRunOnTheCpuTheAnalysisPlacesItOn() throws Exception {
        assumeTrue(twoCpus(), "needs CPUs 0 and 1 (this process may run on " + Linux.currentAffinity() + ")");
        host = RuntimeHost.start(new CellConfig(CpuSet.of(0, 1), 64L << 20, 1, 98, true, false, 1024));
        DeployedApp left = deployHeavy("left");
        DeployedApp right = deployHeavy("right");

        // The analysis of both, as admission control and `rtdroid validate` run it: 6 of 10 ms each,
        // the second does not fit beside the first (WCRT 12 ms > 10 ms), so it goes to CPU 1.
        byte[] l = heavy(xml("left")).getBytes(StandardCharsets.UTF_8);
        byte[] r = heavy(xml("right")).getBytes(StandardCharsets.UTF_8);
        ValidationReport report = Validation.run(SystemModel.union(List.of(ModelBuilder.read("left.xml", l),
                ModelBuilder.read("right.xml", r))), new Cell("two", 2, 64L << 20, 0));
        assertEquals("left/work", report.cpus().get(0).results().get(0).task().key());
        assertEquals("right/work", report.cpus().get(1).results().get(0).task().key());
        assertEquals(Map.of("left/Worker", 0, "right/Worker", 1), host.partition());

        assertPinned(left, CpuSet.of(0));
        assertPinned(right, CpuSet.of(1));
        for (ServiceStatus s : host.services()) {
            assertEquals(s.name().startsWith("left/") ? 0 : 1, s.cpu(), s.name());
        }
    }

    private static void assertPinned(DeployedApp app, CpuSet cpu) throws InterruptedException {
        ComponentRuntime c = app.componentRuntimes().get(0);
        assertTrue(c.tid() > 0);
        assertEquals(cpu, Linux.affinityOf(c.tid()), app.name() + "'s component thread (tid " + c.tid() + ")");
        PeriodicTaskRuntime t = c.tasks().get(0);
        // The deploy returns once the component has started its tasks' threads; each task thread
        // records its tid and pins itself when it first runs, which on a loaded machine is later.
        Apps.await(app.name() + "'s periodic task thread running and pinned", 60_000,
                () -> t.tid() > 0 && cpu.equals(Linux.affinityOf(t.tid())));
        assertTrue(t.tid() != c.tid());
        assertEquals(cpu, Linux.affinityOf(t.tid()), app.name() + "'s periodic task (tid " + t.tid() + ")");
    }

    @Test
    void aRunningComponentKeepsItsCpuWhenAnotherApplicationArrives() throws Exception {
        assumeTrue(twoCpus(), "needs CPUs 0 and 1");
        host = RuntimeHost.start(new CellConfig(CpuSet.of(0, 1), 64L << 20, 1, 98, true, false, 1024));
        deployHeavy("first");
        DeployedApp second = deployHeavy("second");     // CPU 1: it does not fit beside the first
        host.undeploy("first");
        DeployedApp light = deploy("light");            // 6 ms every 100 ms
        // Placed afresh, first-fit decreasing would put the larger "second" on CPU 0; it runs on 1
        // and stays there, and the analysis that admitted "light" kept it there too.
        assertEquals(Map.of("second/Worker", 1, "light/Worker", 0), host.partition());
        assertPinned(second, CpuSet.of(1));
        assertPinned(light, CpuSet.of(0));
        byte[] s = heavy(xml("second")).getBytes(StandardCharsets.UTF_8);
        ValidationReport report = Validation.run(SystemModel.union(List.of(ModelBuilder.read("second.xml", s),
                model("light"))), new Cell("two", 2, 64L << 20, 0), host.partition());
        assertEquals("second/work", report.cpus().get(1).results().get(0).task().key());
        assertEquals("light/work", report.cpus().get(0).results().get(0).task().key());
    }

    /** Sets one alarm for {@link PinnedRing}, a few ms ahead. */
    public static final class AlarmSetter extends RealtimeService {
        @Override
        public void onStartCommand() {
            AlarmManager am = alarmManager();
            PendingIntent soon = alarmBroadcast(PinnedRing.class.getName(), 1);
            for (long lead = 5_000_000L; !am.setExact(Linux.monotonicNanos() + lead, soon); lead *= 2) {
                // the instant passed while setting it: a later one
            }
        }
    }

    /** Records, from the kernel, the CPUs its alarm callback may run on. */
    public static final class PinnedRing extends RealtimeReceiver {
        static volatile CpuSet callbackCpus;

        @Override
        public void onReceive(RealtimeIntent in) {
            callbackCpus = Linux.currentAffinity();
        }
    }

    @Test
    void theAlarmThreadAndTheAlarmCallbacksRunOnTheCpusTheAnalysisGivesThem() throws Exception {
        assumeTrue(twoCpus(), "needs CPUs 0 and 1");
        host = RuntimeHost.start(new CellConfig(CpuSet.of(0, 1), 64L << 20, 1, 90, true, false, 1024));
        deployHeavy("left");  // 6 ms every 10 ms on CPU 0
        String mem = "<memSizes total=\"16K\" persistent=\"8K\" release=\"8K\"/>";
        String xml = "<manifest>\n<application name=\"alarmed\">\n"
                + "<service name=\"" + AlarmSetter.class.getName() + "\" priority=\"40\">" + mem + "</service>\n"
                + "<receiver name=\"" + PinnedRing.class.getName() + "\" priority=\"33\" cost=\"6ms\""
                + " min-interarrival=\"10ms\">" + mem + "</receiver>\n"
                + "<alarms capacity=\"4\" strategy=\"bound\" min-interarrival=\"10ms\" fire-cost=\"100us\"/>\n"
                + "</application>\n</manifest>\n";
        PinnedRing.callbackCpus = null;
        DeployedApp app = deploy("alarmed", xml);
        // The receiver (6 of 10 ms) does not fit beside "left": CPU 1. The alarm thread (4 fires of
        // 100 us every 10 ms, at the top priority) fits on CPU 0.
        assertEquals(1, host.partition().get("alarmed/PinnedRing"));
        assertEquals(0, host.partition().get("alarmed/" + RuntimeServices.ALARM_THREAD));
        assertEquals(CpuSet.of(0), Linux.affinityOf(app.alarmManager().tid()), "the alarm thread");
        Apps.await("the alarm delivered to PinnedRing", 60_000, () -> PinnedRing.callbackCpus != null);
        assertEquals(CpuSet.of(1), PinnedRing.callbackCpus, "the alarm callback ran on the receiver's CPU");
    }

    /**
     * A service whose own work (declared 6 ms every 10 ms) is what the partition is computed from,
     * its accelerometer listener's callbacks included.
     */
    public static final class Listening extends RealtimeService {
        @Override
        public void onStartCommand() {
            org.rtdroid.runtime.sensor.SensorManager sm = sensorManager();
            sm.registerListener(e -> { }, sm.getDefaultSensor(Sensor.TYPE_ACCELEROMETER), 0);
        }
    }

    @Test
    void theSensorThreadsAndListenerLanesRunOnTheCpusTheAnalysisGivesThem() throws Exception {
        assumeTrue(twoCpus(), "needs CPUs 0 and 1");
        host = RuntimeHost.start(new CellConfig(CpuSet.of(0, 1), 64L << 20, 1, 90, true, false, 1024));
        deployHeavy("left");  // 6 ms every 10 ms on CPU 0
        String xml = "<manifest>\n<application name=\"sensing\">\n"
                + "<service name=\"" + Listening.class.getName() + "\" priority=\"40\" cost=\"6ms\""
                + " min-interarrival=\"10ms\"><memSizes total=\"16K\" persistent=\"8K\" release=\"8K\"/></service>\n"
                + "<sensors listeners=\"2\" queue=\"4\" strategy=\"bound\" min-interarrival=\"10ms\""
                + " frame-cost=\"100us\" processing-cost=\"100us\" types=\"accelerometer\"/>\n"
                + "</application>\n</manifest>\n";
        DeployedApp app = deploy("sensing", xml);
        // The service (6 of 10 ms) does not fit beside "left": CPU 1. The polling thread (2 frames of
        // 100 us every 10 ms, top priority) and the accelerometer's processing thread fit on CPU 0.
        assertEquals(1, host.partition().get("sensing/Listening"));
        assertEquals(0, host.partition().get("sensing/" + RuntimeServices.SENSOR_POLL));
        assertEquals(0, host.partition().get("sensing/" + RuntimeServices.sensorProcessing("accelerometer")));
        assertEquals(RuntimeServices.SENSOR_POLL, SensorService.POLLING_THREAD, "the model's name is the runtime's");
        assertEquals(RuntimeServices.sensorProcessing("accelerometer"),
                SensorService.processingThreadName(Sensor.TYPE_ACCELEROMETER));
        SensorService s = app.sensorService();
        assertTrue(s.pollingTid() > 0 && s.processingTid(Sensor.TYPE_ACCELEROMETER) > 0);
        assertEquals(CpuSet.of(0), Linux.affinityOf(s.pollingTid()), "the polling thread");
        assertEquals(CpuSet.of(0), Linux.affinityOf(s.processingTid(Sensor.TYPE_ACCELEROMETER)),
                "the accelerometer's processing thread");
        // The listener's callbacks are the service's own work, modelled on its CPU: its lane runs there.
        Apps.await("the listener registered", 60_000, () -> s.listeners(Sensor.TYPE_ACCELEROMETER) == 1);
        int[] lanes = s.dispatcher(Sensor.TYPE_ACCELEROMETER).tids();
        assertEquals(1, lanes.length, "one lane: one listener");
        Apps.await("the lane thread running", 60_000, () -> s.dispatcher(Sensor.TYPE_ACCELEROMETER).tids()[0] > 0);
        assertEquals(CpuSet.of(1), Linux.affinityOf(s.dispatcher(Sensor.TYPE_ACCELEROMETER).tids()[0]),
                "the listener's lane thread, on the listening service's CPU");
        // The gyroscope is not among <sensors types>: the analysis has no processing thread for it.
        org.rtdroid.runtime.sensor.SensorManager sm = s.manager(40, CpuSet.of(1));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> sm.registerListener(ev -> { }, sm.getDefaultSensor(Sensor.TYPE_GYROSCOPE), 0));
        assertTrue(e.getMessage().contains("name 'gyroscope' in <sensors types>"), e.getMessage());
    }

    @Test
    void aCpuTheKernelRefusesFailsTheDeploymentWithTheErrno() throws Exception {
        assumeTrue(twoCpus(), "needs CPUs 0 and 1");
        // CPU 1000 is a valid cpu_set_t bit but no CPU of this machine: sched_setaffinity says EINVAL.
        host = RuntimeHost.start(new CellConfig(CpuSet.of(0, 1000), 64L << 20, 1, 98, true, false, 1024));
        deployHeavy("left");
        DeploymentException e = assertThrows(DeploymentException.class, () -> deployHeavy("right"));
        assertEquals(DeploymentException.Reason.START_FAILED, e.reason());
        assertTrue(e.getMessage().contains("cannot be pinned to CPU 1000") && e.getMessage().contains("EINVAL"),
                e.getMessage());
        assertEquals(Map.of("left/Worker", 0), host.partition(), "the refused application holds no CPU");
        assertEquals(1, host.apps().size());
    }
}
