package org.rtdroid.runtime.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.component.PeriodicTask;
import org.rtdroid.runtime.component.RealtimeService;

/**
 * After a release that overran several periods, the releases whose periods have passed are
 * skipped and counted (as skipped and as deadline misses), not run back to back; the task keeps
 * its phase.
 */
class OverloadTest {
    static final long PERIOD = 5_000_000L;
    static final int LONG_RELEASE = 10;
    static final long LONG_NANOS = 23_000_000L; // 4.6 periods

    private final RuntimeHost host = Apps.host();

    @AfterEach
    void tearDown() {
        host.shutdown();
    }

    public static final class Overloaded extends RealtimeService {
        static final long[] SCHEDULED = new long[40];
        static volatile long longReleaseEnd;
        static volatile int releases;
        static volatile PeriodicTask task;

        @Override
        public void onStartCommand() {
            task = new PeriodicTask() {
                @Override
                public void onRelease() {
                    int n = releases;
                    if (n < SCHEDULED.length) {
                        SCHEDULED[n] = releaseTimeNanos();
                    }
                    if (n == LONG_RELEASE) {
                        long end = System.nanoTime() + LONG_NANOS;
                        while (System.nanoTime() < end) {
                            Thread.onSpinWait();
                        }
                        longReleaseEnd = System.nanoTime();
                    }
                    releases = n + 1;
                }
            };
            registerTask("tick", task);
        }
    }

    @Test
    void releasesWhosePeriodPassedAreSkippedAndCountedNotRunBackToBack() throws Exception {
        Apps.deploy(host, "overload", Apps.service(Overloaded.class, 20,
                "<memSizes total=\"12K\" persistent=\"4K\" release=\"4K\"/>", Apps.task("tick", "5ms", "4K")));
        Apps.await("releases after the long one", 10_000, () -> Overloaded.releases >= 20);
        PeriodicTask t = Overloaded.task;
        long[] s = Overloaded.SCHEDULED;
        System.out.println("overload: skipped " + t.skippedReleases() + ", deadline misses " + t.deadlineMisses()
                + ", overruns " + t.overruns());
        // 23 ms at a 5 ms period: at least 3 whole periods passed (more if the machine was slow).
        assertTrue(t.skippedReleases() >= 3, "skipped " + t.skippedReleases());
        assertTrue(t.deadlineMisses() >= t.skippedReleases() + 1, "the long release and every skipped one are misses: "
                + t.deadlineMisses() + " misses, " + t.skippedReleases() + " skipped");
        // The phase is kept: every release is scheduled a whole number of periods after the first.
        for (int i = 1; i < 20; i++) {
            assertEquals(0, (s[i] - s[0]) % PERIOD, "release " + i + " is off the task's phase");
            assertTrue(s[i] > s[i - 1], "release " + i + " is not after release " + (i - 1));
        }
        // At most one release whose time had passed runs after the long one: the next is due
        // less than one period before the long release ended.
        long end = Overloaded.longReleaseEnd;
        int due = LONG_RELEASE + 1;
        assertTrue(s[due] > end - PERIOD, "release " + due + " was scheduled " + (end - s[due]) / 1000
                + " µs before the long release ended: a release whose period had passed was run");
    }
}
