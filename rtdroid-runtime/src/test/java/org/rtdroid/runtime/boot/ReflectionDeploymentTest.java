package org.rtdroid.runtime.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.component.ComponentRuntime;
import org.rtdroid.runtime.component.PeriodicTask;
import org.rtdroid.runtime.component.PeriodicTaskRuntime;
import org.rtdroid.runtime.component.RealtimeService;
import org.rtdroid.runtime.manifest.ManifestException;
import org.rtdroid.runtime.manifest.ManifestParser;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.os.RealtimeThreads;
import org.rtdroid.runtime.reflection.Action;
import org.rtdroid.runtime.reflection.ExecutedInterval;
import org.rtdroid.runtime.reflection.PastTimeline;
import org.rtdroid.runtime.validation.ModelBuilder;
import org.rtdroid.runtime.validation.SystemModel;
import org.rtdroid.runtime.validation.Task;

/**
 * Reflection of deployed components: every periodic task's releases in its past timeline, miss and
 * overrun handlers released at their own priority exactly for the jobs that call for them, a
 * reflective service's engine at its engine priority. Costs are burnt by the thread's CPU clock
 * and misses are made by releases that sleep past their deadline, so the verdicts do not depend on
 * how loaded the machine is; every wait is a liveness cap.
 */
class ReflectionDeploymentTest {
    private final RuntimeHost host = RuntimeHost.start(CellConfig.unprivileged(64L << 20).withRealtime(true, false));

    @AfterEach
    void tearDown() {
        host.shutdown();
    }

    /**
     * A filter that overruns its 1 ms cost in FULL mode; its cost-overrun handler drops it to
     * CHEAP, and after 5 cheap releases the task goes back to FULL (the cochlear implant's pattern).
     */
    public static final class Filter extends RealtimeService {
        static volatile boolean cheap;
        static volatile int fullReleases;
        static volatile int handled;
        static volatile int handlerPriority = -1;
        static volatile int handlerKernelPriority = -1;
        static volatile int unflagged;
        static volatile int modeChanges;

        @Override
        public void onStartCommand() {
            registerTask("filter", new PeriodicTask() {
                int cheapReleases;

                @Override
                public void onRelease() {
                    if (cheap) {
                        if (++cheapReleases == 5) {
                            cheapReleases = 0;
                            cheap = false;  // back to the full filter
                            modeChanges++;
                        }
                        return;
                    }
                    fullReleases++;
                    ExecutionTimeTest.burn(1_500_000);
                }
            });
            onCostOverrun("filter", job -> {
                handlerPriority = RealtimeThreads.declaredPriority();
                handlerKernelPriority = Linux.currentPriority();
                if (!job.has(PastTimeline.COST_OVERRUN)) {
                    unflagged++;
                }
                if (!cheap) {
                    cheap = true;
                    modeChanges++;
                }
                handled++;
            });
        }
    }

    @Test
    void aCostOverrunHandlerRunsAtItsPriorityOncePerOverrunningReleaseAndChangesTheMode() throws Exception {
        DeployedApp app = Apps.deploy(host, "overrun", Apps.service(Filter.class, 40,
                "<memSizes total=\"12K\" persistent=\"4K\" release=\"4K\"/>",
                "<periodic-task name=\"filter\" wcet=\"1ms\"><priority priority=\"40\"/><memSizes release=\"4K\"/>"
                        + "<release periodic=\"20ms\"/><cost-overrun-handler priority=\"45\" cost=\"100us\"/></periodic-task>"));
        PeriodicTaskRuntime t = app.componentRuntime("Filter").tasks().get(0);
        Apps.await("15 overrunning releases", 30_000, () -> Filter.fullReleases >= 15);
        app.componentRuntime("Filter").stop();
        Apps.await("the task's thread ended", 5_000, () -> !t.thread().isAlive());
        Apps.await("every release handled", 5_000, () -> Filter.handled == t.jobs().overrunReleases());
        assertEquals(Filter.fullReleases, t.costOverruns(), "every full release overran its 1 ms by the CPU clock");
        assertEquals(t.costOverruns(), t.jobs().overrunReleases(), "released once per overrun, and only then");
        assertEquals(0, Filter.unflagged, "the handler was given the overrunning job");
        assertEquals(45, Filter.handlerPriority, "the handler's thread runs at the handler's priority");
        if (RealtimeThreads.schedFifoPermitted()) {
            assertEquals(45, Filter.handlerKernelPriority, "as the kernel reports it");
        }
        assertTrue(Filter.modeChanges >= 4, "dropped to the cheap filter and back, repeatedly: " + Filter.modeChanges);
        // The task's past: one entry per release, planned a period apart, flags as counted.
        PastTimeline past = t.jobs().past();
        assertEquals(t.releases(), past.recorded());
        ExecutedInterval a = new ExecutedInterval();
        ExecutedInterval b = new ExecutedInterval();
        int overrunFlags = 0;
        for (long s = past.oldest(); s < past.recorded(); s++) {
            assertTrue(past.read(s, a));
            overrunFlags += a.has(PastTimeline.COST_OVERRUN) ? 1 : 0;
            assertEquals(20_000_000L, a.plannedEndNanos() - a.plannedBeginNanos(), "planned end = deadline");
            assertTrue(a.actualBeginNanos() >= a.plannedBeginNanos(), "never released early");
            if (s > past.oldest() && !a.has(PastTimeline.SKIPPED) && !b.has(PastTimeline.SKIPPED)) {
                assertEquals(0, (a.plannedBeginNanos() - b.plannedBeginNanos()) % 20_000_000L, "on the period grid");
            }
            past.read(s, b);
        }
        assertEquals(t.costOverruns(), overrunFlags);
    }

    /** Sleeps 8 ms (past its 5 ms deadline) every fourth release. */
    public static final class Sleeper extends RealtimeService {
        static volatile int slept;
        static volatile int handled;
        static volatile int handlerPriority = -1;
        static volatile long lastMissedBegin;

        @Override
        public void onStartCommand() {
            registerTask("sleeper", new PeriodicTask() {
                int n;

                @Override
                public void onRelease() {
                    if (++n % 4 == 0) {
                        slept++;
                        try {
                            Thread.sleep(8);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }
            });
            onDeadlineMiss("sleeper", job -> {
                handlerPriority = RealtimeThreads.declaredPriority();
                lastMissedBegin = job.plannedBeginNanos();
                handled++;
            });
        }
    }

    @Test
    void aDeadlineMissHandlerIsReleasedForEveryMissedReleaseAndOnlyThose() throws Exception {
        DeployedApp app = Apps.deploy(host, "miss", Apps.service(Sleeper.class, 30,
                "<memSizes total=\"12K\" persistent=\"4K\" release=\"4K\"/>",
                "<periodic-task name=\"sleeper\"><memSizes release=\"4K\"/><release periodic=\"20ms\" deadline=\"5ms\"/>"
                        + "<deadline-miss-handler priority=\"35\" cost=\"100us\"/></periodic-task>"));
        PeriodicTaskRuntime t = app.componentRuntime("Sleeper").tasks().get(0);
        Apps.await("6 releases past their deadline", 30_000, () -> Sleeper.slept >= 6);
        app.componentRuntime("Sleeper").stop();
        Apps.await("the task's thread ended", 5_000, () -> !t.thread().isAlive());
        Apps.await("every miss handled", 5_000, () -> Sleeper.handled == t.jobs().missReleases());
        assertTrue(t.deadlineMisses() >= Sleeper.slept, "each sleep missed the 5 ms deadline");
        assertEquals(t.deadlineMisses(), t.jobs().missReleases(), "released once per miss, and only then");
        assertEquals(35, Sleeper.handlerPriority);
        assertTrue(Sleeper.lastMissedBegin > 0);
    }

    /** A reflective service: a strategist keeps one action running every 2 ms. */
    public static final class Reflective extends RealtimeService {
        static volatile int performed;
        static volatile int enginePriority = -1;
        static volatile long clobbered;

        @Override
        public void onStartCommand() {
            Action tick = new Action(1, "tick") {
                @Override
                public void perform() {
                    enginePriority = RealtimeThreads.declaredPriority();
                    performed++;
                }
            };
            strategist((a, tl) -> {
                if (a.clobbered()) {
                    clobbered++;
                }
                long next = a.interval().plannedBeginNanos() + 2_000_000L;
                tl.plan(a, next, next + 1_000_000L);
            });
            long now = timeline().now();
            timeline().plan(tick, now + 10_000_000L, now + 11_000_000L);
        }
    }

    static final String REFLECTIVE = Apps.service(Reflective.class, 20,
            "<memSizes total=\"8K\" persistent=\"4K\" release=\"4K\"/>",
            "<reflection engine-priority=\"25\" budget=\"200us\" period=\"2ms\" future=\"4\" past=\"64\""
                    + " wake-guard=\"100us\" wakes=\"1\"/>");

    @Test
    void aReflectiveServiceRunsItsStrategistsPlanOnAnEngineAtTheEnginePriority() throws Exception {
        DeployedApp app = Apps.deploy(host, "reflective", REFLECTIVE);
        ComponentRuntime c = app.componentRuntime("Reflective");
        assertNotNull(c.engine());
        Apps.await("100 actions", 30_000, () -> Reflective.performed >= 100);
        assertEquals(25, Reflective.enginePriority);
        assertEquals(100_000L, c.engine().wakeGuardNanos(), "the manifest's wake guard");
        assertEquals(64, c.timeline().past().capacity());
        assertTrue(c.timeline().past().recorded() >= 100);
        host.undeploy("reflective");
        assertTrue(!c.engine().isRunning(), "undeploy stops the engine");
    }

    public static final class NoStrategist extends RealtimeService {}

    /** Registers its task but sets no code for the task's declared miss handler. */
    public static final class NoHandlerCode extends RealtimeService {
        @Override
        public void onStartCommand() {
            registerTask("x", new PeriodicTask() {
                @Override
                public void onRelease() {}
            });
        }
    }

    @Test
    void aReflectiveServiceWithoutAStrategistFailsToStartSayingWhy() {
        DeploymentException e = assertThrows(DeploymentException.class, () -> Apps.deploy(host, "nostrat",
                Apps.service(NoStrategist.class, 20, "<memSizes total=\"8K\" persistent=\"4K\" release=\"4K\"/>",
                        "<reflection engine-priority=\"25\" budget=\"200us\" period=\"2ms\"/>")));
        assertTrue(e.getMessage().contains("set no strategist"), e.getMessage());
    }

    @Test
    void aDeclaredHandlerWithoutCodeFailsToStartSayingWhich() {
        DeploymentException e = assertThrows(DeploymentException.class, () -> Apps.deploy(host, "nocode",
                Apps.service(NoHandlerCode.class, 20, "<memSizes total=\"12K\" persistent=\"4K\" release=\"4K\"/>",
                        "<periodic-task name=\"x\"><memSizes release=\"4K\"/><release periodic=\"20ms\"/>"
                                + "<deadline-miss-handler priority=\"30\" cost=\"50us\"/></periodic-task>")));
        assertTrue(e.getMessage().contains("deadline-miss-handler"), e.getMessage());
    }

    @Test
    void theManifestRefusesAnEngineNotAboveItsServiceAndHandlersWithoutCost() {
        ManifestException low = assertThrows(ManifestException.class, () -> Apps.manifest("low",
                Apps.service(Reflective.class, 20, "<memSizes total=\"12K\" persistent=\"4K\" release=\"4K\"/>",
                        "<reflection engine-priority=\"22\" budget=\"1ms\" period=\"2ms\"/>"
                                + "<periodic-task name=\"t\"><priority priority=\"22\"/><memSizes release=\"4K\"/>"
                                + "<release periodic=\"10ms\"/></periodic-task>")));
        assertTrue(low.getMessage().contains("engine-priority 22 must be above the service's other work (22)"), low.getMessage());
        ManifestException noCost = assertThrows(ManifestException.class, () -> Apps.manifest("nocost",
                Apps.service(Filter.class, 20, "<memSizes total=\"12K\" persistent=\"4K\" release=\"4K\"/>",
                        "<periodic-task name=\"t\" wcet=\"1ms\"><memSizes release=\"4K\"/><release periodic=\"10ms\"/>"
                                + "<cost-overrun-handler priority=\"30\"/></periodic-task>")));
        assertTrue(noCost.getMessage().contains("needs a cost"), noCost.getMessage());
        ManifestException noWcet = assertThrows(ManifestException.class, () -> Apps.manifest("nowcet",
                Apps.service(Filter.class, 20, "<memSizes total=\"12K\" persistent=\"4K\" release=\"4K\"/>",
                        "<periodic-task name=\"t\"><memSizes release=\"4K\"/><release periodic=\"10ms\"/>"
                                + "<cost-overrun-handler priority=\"30\" cost=\"50us\"/></periodic-task>")));
        assertTrue(noWcet.getMessage().contains("no wcet to overrun"), noWcet.getMessage());
    }

    /** One line naming what is wrong with a wake guard. */
    private static String guardError(String attrs) {
        return assertThrows(ManifestException.class, () -> Apps.manifest("guard",
                Apps.service(Reflective.class, 20, "<memSizes total=\"8K\" persistent=\"4K\" release=\"4K\"/>",
                        "<reflection engine-priority=\"25\" budget=\"1ms\" period=\"2ms\" " + attrs + "/>"))).getMessage();
    }

    @Test
    void theManifestRefusesAWakeGuardOutOfBoundsOrWithoutItsWakes() {
        String big = guardError("wake-guard=\"11ms\" wakes=\"1\"");
        assertTrue(big.contains("wake-guard 11 ms is outside 0..10 ms"), big);
        String noWakes = guardError("wake-guard=\"100us\"");
        assertTrue(noWakes.contains("needs wakes"), noWakes);
        String noGuard = guardError("wakes=\"2\"");
        assertTrue(noGuard.contains("declare wake-guard or drop wakes"), noGuard);
        String over = guardError("wake-guard=\"300us\" wakes=\"4\"");
        assertTrue(over.contains("budget 1 ms + wakes 4 x wake-guard 0.3 ms = 2.2 ms exceeds the period 2 ms"), over);
        String unitless = guardError("wake-guard=\"200\" wakes=\"1\"");
        assertTrue(unitless.contains("wake-guard") && unitless.contains("is not a duration"), unitless);
        String tooMany = guardError("wake-guard=\"1us\" wakes=\"1025\"");
        assertTrue(tooMany.contains("1025 is outside 0..1024"), tooMany);
        for (String m : new String[] {big, noWakes, noGuard, over, unitless, tooMany}) {
            assertFalse(m.contains("\n"), m);
        }
    }

    @Test
    void validationModelsTheEngineAndEveryHandlerAsTasksOfTheirComponent() throws Exception {
        String xml = "<manifest><application name=\"v\">"
                + Apps.service(Reflective.class, 20, "<memSizes total=\"12K\" persistent=\"4K\" release=\"4K\"/>",
                        "<reflection engine-priority=\"25\" budget=\"3ms\" period=\"40ms\" wake-guard=\"200us\" wakes=\"2\"/>"
                                + "<periodic-task name=\"t\" wcet=\"1ms\"><memSizes release=\"4K\"/><release periodic=\"10ms\"/>"
                                + "<cost-overrun-handler priority=\"30\" cost=\"50us\"/>"
                                + "<deadline-miss-handler priority=\"31\" cost=\"60us\"/></periodic-task>")
                + "</application></manifest>";
        SystemModel model = ModelBuilder.read("v.xml", xml.getBytes(StandardCharsets.UTF_8));
        Task engine = find(model, "v/Reflective.engine");
        assertEquals(25, engine.priority());
        assertEquals(3_400_000L, engine.costNanos(), "the budget and two spins of the guard");
        assertEquals(40_000_000L, engine.periodNanos());
        assertEquals("Reflective", engine.component());
        Task overrun = find(model, "v/t/overrun-handler");
        assertEquals(Task.Kind.SPORADIC, overrun.kind());
        assertEquals(30, overrun.priority());
        assertEquals(10_000_000L, overrun.periodNanos(), "at most once per release of its task");
        assertEquals(50_000L, overrun.costNanos());
        assertEquals(31, find(model, "v/t/miss-handler").priority());
        assertTrue(ManifestParser.parse("v.xml", new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8))).timing() != null);
    }

    private static Task find(SystemModel m, String key) {
        for (Task t : m.tasks()) {
            if (t.key().equals(key)) {
                return t;
            }
        }
        throw new AssertionError(key + " not in the model: " + m.tasks());
    }
}
