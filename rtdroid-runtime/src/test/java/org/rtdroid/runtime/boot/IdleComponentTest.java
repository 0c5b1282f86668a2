package org.rtdroid.runtime.boot;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.component.PeriodicTask;
import org.rtdroid.runtime.component.RealtimeService;
import org.rtdroid.runtime.os.Linux;

/**
 * A component thread with nothing to deliver must sleep until it is needed: it runs at the
 * component's real-time priority on the cell's CPUs, so every needless wake-up can land next to a
 * periodic release of the same priority and delay it. (It used to poll every 20 ms.)
 */
class IdleComponentTest {
    private final RuntimeHost host = Apps.host();

    @AfterEach
    void tearDown() {
        host.shutdown();
    }

    public static final class Quiet extends RealtimeService {
        static volatile int serviceTid;
        static volatile long releases;

        @Override
        public void onCreate() {
            serviceTid = Linux.gettid();
        }

        @Override
        public void onStartCommand() {
            registerTask("tick", new PeriodicTask() {
                @Override
                public void onRelease() {
                    releases++;
                }
            });
        }
    }

    static long wakeUps(int tid) throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/self/task/" + tid + "/status"))) {
            if (line.startsWith("voluntary_ctxt_switches:")) {
                return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        throw new AssertionError("no voluntary_ctxt_switches in /proc/self/task/" + tid + "/status");
    }

    @Test
    void anIdleServiceThreadDoesNotWakeUpWhileItsTaskRuns() throws Exception {
        DeployedApp app = Apps.deploy(host, "quiet", Apps.service(Quiet.class, 20,
                "<memSizes total=\"12K\" persistent=\"4K\" release=\"4K\"/>", Apps.task("tick", "5ms", "4K")));
        Apps.await("task running", 5_000, () -> Quiet.releases > 5);
        int tid = Quiet.serviceTid;
        long before = wakeUps(tid);
        Thread.sleep(400);
        // the task's releases, not the clock, say the window was long enough (a loaded machine is slower)
        Apps.await("the task kept running (40 releases)", 10_000, () -> Quiet.releases > 40);
        long after = wakeUps(tid);
        // A 20 ms poll would show about 20 here; a parked thread shows 0 (1 allows for one stray wake-up).
        assertTrue(after - before <= 1, "idle service thread woke " + (after - before) + " times in 400 ms");
        host.undeploy("quiet"); // and it still stops when told to
        assertTrue(app.componentRuntime("Quiet").join(5_000), "service thread ended after undeploy");
    }
}
