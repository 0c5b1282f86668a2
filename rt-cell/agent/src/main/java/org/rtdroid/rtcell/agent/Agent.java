package org.rtdroid.rtcell.agent;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.rtdroid.bridge.Backoff;
import org.rtdroid.bridge.Region;
import org.rtdroid.bridge.RegionDescriptor.Counter;
import org.rtdroid.bridge.RingCounters;
import org.rtdroid.bridge.codec.Frame;
import org.rtdroid.bridge.rtproxy.ProxyStats;
import org.rtdroid.bridge.rtproxy.RtProxy;
import org.rtdroid.runtime.boot.RuntimeHost;
import org.rtdroid.runtime.os.CpuSet;

/**
 * The RT cell's system server, wired: a region attached as peer 0, the {@link RuntimeHost}, the
 * {@link RtProxy} on the data rings and the {@link ManagementLoop} on ring 0. {@link Main} builds
 * one from the command line; tests build one on a heap region.
 */
public final class Agent {
    public static final String VERSION = "0.1.0";

    private final Region region;
    private final RuntimeHost host;
    private final CellDeployments deployments;
    private final RtProxy proxy;
    private final ManagementLoop management;
    private final CellSensors sensors;
    private final CellProbes probes;
    private final Consumer<String> out;
    private volatile boolean stopping;

    /**
     * Starts the proxy (SCHED_FIFO 1 on {@code cpus} after its start-up at SCHED_OTHER, degraded
     * with a warning where not permitted);
     * the management loop runs when {@link #serve} is called.
     */
    public Agent(Region region, RuntimeHost host, CellDeployments deployments, CpuSet cpus, Consumer<String> out) {
        this(region, host, deployments, CellSensors.unavailable("the agent runs no sensor simulator"), cpus, out);
    }

    /** @param sensors the cell's sensors (motion traces and SENSOR_STATUS on the management ring) */
    public Agent(Region region, RuntimeHost host, CellDeployments deployments, CellSensors sensors, CpuSet cpus,
            Consumer<String> out) {
        this(region, host, deployments, sensors, CellProbes.none(), cpus, out);
    }

    /** @param probes the cell's characterisation probes (PROBE_RUN on the management ring) */
    public Agent(Region region, RuntimeHost host, CellDeployments deployments, CellSensors sensors, CellProbes probes,
            CpuSet cpus, Consumer<String> out) {
        this.region = region;
        this.probes = probes;
        this.host = host;
        this.deployments = deployments;
        this.out = out;
        this.proxy = RtProxy.create(region, host.crossContext(), out);
        this.sensors = sensors;
        this.management = new ManagementLoop(region, deployments, this::stats, this::helloText, sensors, probes, out);
        proxy.start(cpus);
    }

    public RtProxy proxy() {
        return proxy;
    }

    public CellDeployments deployments() {
        return deployments;
    }

    public ManagementLoop management() {
        return management;
    }

    /** Marks the cell READY and serves the management ring until {@link #requestStop}. */
    public void serve() {
        region.setState(Region.STATE_READY);
        management.run(new Backoff(100, 10, 50_000L, 2_000_000L));
    }

    /** Asks {@link #serve} to return (signal handlers call this). */
    public void requestStop() {
        stopping = true;
        management.stop();
    }

    public boolean stopRequested() {
        return stopping;
    }

    /** STOPPING, undeploy everything, stop the sensors' replay, the proxy and the runtime. Never throws. */
    public void shutdown() {
        region.setState(Region.STATE_STOPPING);
        deployments.undeployAll();
        sensors.close();
        probes.close();
        try {
            proxy.stop(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            host.shutdown();
        } catch (RuntimeException e) {
            out.accept("rtcell: runtime shutdown: " + e);
        }
        region.heartbeat();
    }

    /** The STATS answer: the region's counters for the RT cell's side plus the proxy's own. */
    Frame.Stats stats() {
        Frame f = new Frame();
        Frame.Stats s = f.selectControl().selectStats();
        long in = 0;
        long outFrames = 0;
        long corrupt = 0;
        long undeliverable = 0;
        long full = 0;
        long resyncs = 0;
        for (int r = 0; r < region.layout().rings(); r++) {
            RingCounters theirs = region.counters(region.otherPeer(), r); // their ring, our consumer line
            RingCounters ours = region.counters(region.peerId(), r);
            in += theirs.get(Counter.FRAMES_ACCEPTED);
            corrupt += theirs.get(Counter.FRAMES_CORRUPT);
            undeliverable += theirs.get(Counter.FRAMES_UNDELIVERABLE);
            resyncs += theirs.get(Counter.RESYNCS);
            outFrames += ours.get(Counter.FRAMES_WRITTEN);
            full += ours.get(Counter.FRAMES_DROPPED_FULL);
        }
        ProxyStats p = proxy.stats();
        // Outbound intents dropped before reaching a ring (peer not ready, not encodable) count as full drops too.
        full += p.get(ProxyStats.PEER_NOT_READY) + p.get(ProxyStats.ENCODE_FAILED);
        return s.framesIn(in).framesOut(outFrames).droppedCorrupt(corrupt).droppedUndeliverable(undeliverable)
                .droppedFull(full).resyncs(resyncs).peerRestarts(p.get(ProxyStats.PEER_RESTARTS));
    }

    private String helloText() {
        return "rt-cell-agent " + VERSION + "; kernel realtime=" + (kernelRealtime() ? 1 : 0) + " " + kernelRelease()
                + "; rt throttle " + kernelRtThrottle() + " (" + ThrottleProbe.result() + "); peer 0 epoch " + region.peerEpoch(Region.RT_PEER) + "; proxy " + proxy.schedulingNow();
    }

    /** /sys/kernel/realtime = 1 on a PREEMPT_RT kernel; absent elsewhere. */
    public static boolean kernelRealtime() {
        try {
            return Files.readString(Path.of("/sys/kernel/realtime"), StandardCharsets.US_ASCII).trim().equals("1");
        } catch (Exception e) {
            return false;
        }
    }

    /**
     * "runtime/period us": how much of each period the kernel lets SCHED_FIFO/RR tasks run
     * (kernel.sched_rt_runtime_us, kernel.sched_rt_period_us), which bounds how long a real-time
     * thread spinning on a SCHED_OTHER one can hold its CPU; "unknown" where /proc does not say.
     */
    public static String kernelRtThrottle() {
        return throttleText(kernelRtThrottleUs());
    }

    /** {runtime, period} as "runtime/period us"; "unknown" for null. */
    static String throttleText(long[] throttle) {
        return throttle == null ? "unknown" : throttle[0] + "/" + throttle[1] + " us";
    }

    /** {runtime, period} in us, or null where /proc does not say. */
    static long[] kernelRtThrottleUs() {
        try {
            return new long[] {Long.parseLong(sysctl("sched_rt_runtime_us")), Long.parseLong(sysctl("sched_rt_period_us"))};
        } catch (Exception e) {
            return null;
        }
    }

    /**
     * A /proc/sys/kernel entry, read in one call: the kernel answers a read of a numeric one at an
     * offset other than 0 with end-of-file, so Files.readString (which reads a file /proc sizes
     * at 0 a byte at a time at first) returned "9" for 9500.
     */
    private static String sysctl(String name) throws java.io.IOException {
        try (var in = Files.newInputStream(Path.of("/proc/sys/kernel", name))) {
            byte[] b = new byte[128];
            int n = in.read(b);
            return new String(b, 0, Math.max(n, 0), StandardCharsets.US_ASCII).trim();
        }
    }

    public static String kernelRelease() {
        try {
            return sysctl("osrelease");
        } catch (Exception e) {
            return System.getProperty("os.version");
        }
    }
}
