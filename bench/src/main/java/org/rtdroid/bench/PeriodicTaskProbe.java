package org.rtdroid.bench;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.rtdroid.runtime.boot.CellConfig;
import org.rtdroid.runtime.boot.RuntimeHost;
import org.rtdroid.runtime.component.PeriodicTask;
import org.rtdroid.runtime.component.RealtimeService;
import org.rtdroid.runtime.manifest.ManifestParser;
import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.os.Linux;

/**
 * The periodic benchmark's {@code rtdroid} participant: a real {@link PeriodicTask}, deployed from a
 * manifest into a {@link RuntimeHost} (pinned cell, SCHED_FIFO), whose {@code onRelease} records
 * how late it runs after its scheduled release time. Public because the runtime instantiates the
 * service by class name.
 */
public final class PeriodicTaskProbe extends RealtimeService {
    // Set before a deployment, read after the task's thread is done; one deployment at a time.
    private static volatile Latency target;
    private static volatile long wanted;
    private static volatile long skip;
    private static volatile long recorded;
    private static volatile long missed;
    private static volatile boolean done;

    @Override
    public void onStartCommand() {
        registerTask("tick", new Tick());
    }

    /** Records lateness; a release due before the previous one woke up is a catch-up, not a sample. */
    private static final class Tick extends PeriodicTask {
        private long seen;
        private long lastWakeNanos;

        @Override
        public void onRelease() {
            long now = Linux.monotonicNanos();
            long release = releaseTimeNanos();
            if (seen++ >= skip && !done) {
                if (recorded >= wanted) {
                    done = true; // wanted = 0: a JIT warm-up that only counts releases
                } else if (release - lastWakeNanos < 0) {
                    missed++;
                } else {
                    target.recordNanos(now - release);
                    long n = recorded + 1;
                    recorded = n;
                    if (n >= wanted) {
                        done = true;
                    }
                }
            }
            lastWakeNanos = now;
        }
    }

    private final RuntimeHost host;
    private final String periodText;

    /** Used by the runtime only (as the deployed service). */
    public PeriodicTaskProbe() {
        host = null;
        periodText = null;
    }

    private PeriodicTaskProbe(RuntimeHost host, String periodText) {
        this.host = host;
        this.periodText = periodText;
    }

    /** A cell pinned to {@code cpu} with SCHED_FIFO (degrades with one warning where not permitted). */
    static PeriodicTaskProbe start(int cpu, long periodNanos) {
        RuntimeHost h = RuntimeHost.start(new CellConfig(CpuSet.of(cpu), 64L << 20, 1, 98));
        return new PeriodicTaskProbe(h, (periodNanos / 1000) + "us");
    }

    /**
     * Deploys the probe, lets it skip {@code skipReleases} and record {@code releases} samples
     * into {@code into} (at {@code period}, or this probe's period if null), then undeploys it.
     *
     * @return releases skipped as catch-ups after a stall
     */
    long run(int priority, String period, long skipReleases, long releases, Latency into) throws Exception {
        target = into;
        wanted = releases;
        skip = skipReleases;
        recorded = 0;
        missed = 0;
        done = false;
        String xml = "<manifest><application name=\"bench-periodic\">"
                + "<service name=\"" + PeriodicTaskProbe.class.getName() + "\" priority=\"" + priority + "\">"
                + "<memSizes total=\"12K\" persistent=\"4K\" release=\"4K\"/>"
                + "<periodic-task name=\"tick\"><memSizes release=\"4K\"/><release periodic=\""
                + (period != null ? period : periodText) + "\"/></periodic-task>"
                + "</service></application></manifest>";
        host.deploy(ManifestParser.parse("bench-periodic.xml", new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8))),
                PeriodicTaskProbe.class.getClassLoader());
        try {
            long deadline = System.nanoTime() + 120_000_000_000L;
            while (!done) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("periodic task recorded " + recorded + " of " + releases + " releases in 120 s");
                }
                Thread.sleep(5);
            }
        } finally {
            host.undeploy("bench-periodic");
        }
        return missed;
    }

    void shutdown() {
        host.shutdown();
    }
}
