package org.rtdroid.runtime.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.component.PeriodicTask;
import org.rtdroid.runtime.component.RealtimeService;

class LifecycleTest {
    private final RuntimeHost host = Apps.host();

    @AfterEach
    void tearDown() {
        host.shutdown();
    }

    public static final class LifeService extends RealtimeService {
        static final List<String> EVENTS = Collections.synchronizedList(new ArrayList<>());
        static volatile Thread serviceThread;
        static volatile Thread taskThread;
        static final long[] RELEASE_TIMES = new long[20];
        static volatile int releases;

        @Override
        public void onCreate() {
            serviceThread = Thread.currentThread();
            EVENTS.add("onCreate");
        }

        @Override
        public void onStartCommand() {
            EVENTS.add("onStartCommand");
            registerTask("tick", new PeriodicTask() {
                @Override
                public void onRelease() {
                    int n = releases;
                    if (n == 0) {
                        taskThread = Thread.currentThread();
                        EVENTS.add("onRelease");
                    }
                    if (n < RELEASE_TIMES.length) {
                        RELEASE_TIMES[n] = releaseTimeNanos();
                    }
                    releases = n + 1;
                }
            });
        }

        @Override
        public void onDestroy() {
            EVENTS.add("onDestroy");
        }
    }

    @Test
    void callbacksRunInOrderOnTheirOwnThreadsAndReleasesFollowAnAbsoluteSchedule() throws Exception {
        LifeService.EVENTS.clear();
        LifeService.releases = 0;
        DeployedApp app = Apps.deploy(host, "life", Apps.service(LifeService.class, 60,
                "<memSizes total=\"12K\" persistent=\"4K\" release=\"4K\"/>", Apps.task("tick", "2ms", "4K")));
        Apps.await("20 releases", 5_000, () -> LifeService.releases >= 20);
        assertEquals(List.of("onCreate", "onStartCommand", "onRelease"), List.copyOf(LifeService.EVENTS));
        assertNotEquals(LifeService.serviceThread, LifeService.taskThread, "a periodic task has its own thread");
        assertTrue(LifeService.serviceThread.getName().contains("LifeService"), LifeService.serviceThread.getName());
        // Release k is scheduled at epoch + k x period exactly: no drift, whatever the wake-up jitter.
        // After a stall longer than a period the runtime skips the releases whose period has passed
        // (counted), so consecutive callbacks are a whole number of periods apart, not always one
        // (a CI run saw 6 ms once).
        for (int k = 1; k < LifeService.RELEASE_TIMES.length; k++) {
            long gap = LifeService.RELEASE_TIMES[k] - LifeService.RELEASE_TIMES[k - 1];
            assertTrue(gap > 0 && gap % 2_000_000L == 0, "release " + k + " came " + gap + " ns after the one before: "
                    + "not on the 2 ms grid");
        }
        ServiceStatus task = host.services().stream().filter(s -> s.name().equals("life/LifeService/tick")).findFirst()
                .orElseThrow();
        assertEquals("RUNNING", task.state());
        assertTrue(task.releases() >= 20);
        assertEquals(60, task.priority());
        // response = release to completion, lateness = release to start: per release and so in the worst
        assertTrue(task.worstResponseNanos() > 0 && task.worstResponseNanos() >= task.worstLatenessNanos(), task.toString());
        host.undeploy("life");
        assertEquals(List.of("onCreate", "onStartCommand", "onRelease", "onDestroy"), List.copyOf(LifeService.EVENTS));
        assertTrue(app.isUndeployed());
        assertTrue(host.services().isEmpty());
        int after = LifeService.releases;
        Thread.sleep(20);
        assertEquals(after, LifeService.releases, "no release after undeploy");
    }
}
