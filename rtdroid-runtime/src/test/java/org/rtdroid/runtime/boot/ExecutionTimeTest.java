package org.rtdroid.runtime.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.channel.ChannelSender;
import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.component.PeriodicTask;
import org.rtdroid.runtime.component.RealtimeReceiver;
import org.rtdroid.runtime.component.RealtimeService;
import org.rtdroid.runtime.manifest.Manifest;
import org.rtdroid.runtime.manifest.ManifestParser;
import org.rtdroid.runtime.os.CpuClock;
import org.rtdroid.runtime.validation.ModelBuilder;

/**
 * The CPU time each release and callback used, against the cost the admission analysis assumed.
 * The apps burn CPU time by the thread's own CPU clock, not by the wall clock, so the verdicts hold
 * however loaded the machine is: a preempted release is slow, not expensive.
 */
class ExecutionTimeTest {
    private final RuntimeHost host = Apps.host();

    @AfterEach
    void tearDown() {
        host.shutdown();
    }

    /** Uses at least {@code nanos} of the calling thread's CPU time. */
    static void burn(long nanos) {
        long end = CpuClock.currentThreadNanos() + nanos;
        while (CpuClock.currentThreadNanos() < end) {
            Thread.onSpinWait();
        }
    }

    public static final class Spinner extends RealtimeService {
        static volatile int heavyReleases;
        static volatile int lightReleases;

        @Override
        public void onStartCommand() {
            registerTask("heavy", new PeriodicTask() {
                @Override
                public void onRelease() {
                    burn(1_500_000);  // declared wcet 1 ms: every release overruns it
                    heavyReleases++;
                }
            });
            registerTask("light", new PeriodicTask() {
                @Override
                public void onRelease() {
                    lightReleases++;  // declared wcet 5 ms: never reached
                }
            });
        }
    }

    public static final class Checker extends RealtimeReceiver {
        static volatile int callbacks;

        @Override
        public void onReceive(RealtimeIntent intent) {
            burn(intent.what * 1_000_000L);
            callbacks++;
        }
    }

    @Test
    void releasesAndCallbacksThatUseMoreCpuTimeThanTheirDeclaredCostAreCountedAsCostOverruns() throws Exception {
        assertTrue(CpuClock.supported(), "HotSpot reads a thread's CPU time");
        Spinner.heavyReleases = 0;
        Spinner.lightReleases = 0;
        Checker.callbacks = 0;
        String body = "<service name=\"" + Spinner.class.getName() + "\" priority=\"60\">"
                + "<memSizes total=\"16K\" persistent=\"4K\" release=\"4K\"/>"
                + "<periodic-task name=\"heavy\" wcet=\"1ms\"><memSizes release=\"4K\"/>"
                + "<release periodic=\"10ms\"/></periodic-task>"
                + "<periodic-task name=\"light\" wcet=\"5ms\"><memSizes release=\"4K\"/>"
                + "<release periodic=\"10ms\"/></periodic-task>"
                + Apps.filter("publisher", "checks") + "</service>\n"
                // the receiver's cost comes from the analysis's model (cost=), not from a task's wcet
                + "<receiver name=\"" + Checker.class.getName() + "\" priority=\"50\" cost=\"2ms\""
                + " min-interarrival=\"20ms\"><memSizes total=\"8K\" persistent=\"4K\" release=\"4K\"/>" + Apps.filter("subscriber", "checks") + "</receiver>\n"
                + "<channel name=\"checks\" type=\"rt-msg\" capacity=\"4\"><data size=\"16B\"/></channel>";
        Manifest manifest = Apps.manifest("spin", body);
        String xml = "<manifest>\n<application name=\"spin\">\n" + body + "\n</application>\n</manifest>\n";
        DeployedApp app = host.deploy(manifest, ModelBuilder.build(manifest,
                ManifestParser.parse("spin.xml", new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8))).timing()), Apps.class.getClassLoader());
        var checks = app.messageChannel("checks");
        checks.send(new ChannelSender("checks", "within", 10, true), m -> m.what = 1);  // 1 ms of a 2 ms cost
        Apps.await("the first check", 10_000, () -> Checker.callbacks == 1);
        checks.send(new ChannelSender("checks", "over", 10, true), m -> m.what = 3);    // 3 ms of a 2 ms cost
        Apps.await("5 heavy releases, 5 light ones and 2 checks", 20_000,
                () -> Spinner.heavyReleases >= 5 && Spinner.lightReleases >= 5 && Checker.callbacks == 2);

        ServiceStatus heavy = row("spin/Spinner/heavy");
        assertEquals(1_000_000L, heavy.execution().costNanos(), "the task's declared wcet");
        assertTrue(heavy.execution().worstNanos() >= 1_500_000L, heavy.toString());
        assertTrue(heavy.execution().overruns() >= 4 && heavy.execution().overruns() <= heavy.releases(),
                "every completed release overran: " + heavy);
        // the response time holds the execution (and any preemption before or inside it)
        assertTrue(heavy.worstResponseNanos() >= heavy.execution().worstNanos(), heavy.toString());

        ServiceStatus light = row("spin/Spinner/light");
        assertEquals(5_000_000L, light.execution().costNanos());
        assertTrue(light.execution().worstNanos() > 0 && light.execution().worstNanos() < 5_000_000L, light.toString());
        assertEquals(0L, light.execution().overruns(), light.toString());

        ServiceStatus checker = row("spin/Checker");
        assertEquals(2_000_000L, checker.execution().costNanos(), "the receiver's declared cost, from the model");
        assertTrue(checker.execution().worstNanos() >= 3_000_000L, checker.toString());
        assertEquals(1L, checker.execution().overruns(), "only the 3 ms callback overran: " + checker);

        ServiceStatus spinner = row("spin/Spinner");
        assertEquals(0L, spinner.execution().costNanos(), "a service whose tasks carry its work declares no cost");
        assertEquals(0L, spinner.execution().overruns());
    }

    private ServiceStatus row(String name) {
        return host.services().stream().filter(s -> s.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + name + " in " + host.services()));
    }
}
