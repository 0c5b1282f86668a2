package org.rtdroid.bridge.rtproxy;

import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import org.rtdroid.bridge.Backoff;
import org.rtdroid.bridge.ConsumerRing;
import org.rtdroid.bridge.ProducerRing;
import org.rtdroid.bridge.Region;
import org.rtdroid.bridge.codec.Frame;
import org.rtdroid.bridge.codec.FrameCodec;
import org.rtdroid.runtime.os.AppliedPolicy;
import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.os.RealtimePolicy;
import org.rtdroid.runtime.os.RealtimeThreads;
import org.rtdroid.runtime.xcc.CrossContextEndpoint;
import org.rtdroid.runtime.xcc.CrossContextIntent;

/**
 * The RT-side proxy (region-spec.md, "Waiting"; protocols.md, "Application channels"): the only
 * thread of the RT cell that touches frames.
 *
 * <p>It runs at the LOWEST real-time priority (SCHED_FIFO 1) on the cell's CPUs, so polling and
 * decoding can never delay a real-time component, yet it is not starved by the non-real-time noise
 * of the cell. Each {@link #doWork() pass}:
 * <ol>
 * <li>heartbeats the state table when {@code heartbeatIntervalNanos} has passed, and notices an
 *     Android cell restart (its epoch changed);</li>
 * <li>takes at most ONE inbound frame, from the highest-priority non-empty data ring (ring 1
 *     first), decodes it on the heap into a reusable {@link Frame}, maps its channel name to the
 *     runtime's channel id, copies it into a reusable {@link CrossContextIntent} stamped with
 *     {@code rt_receive_nanos}, and hands it to the runtime, which checks admission (channel,
 *     direction, allowed sender, priority) and copies it into a pre-allocated real-time intent;</li>
 * <li>takes at most ONE outbound intent the real-time components published, reads it where the
 *     runtime holds it, and writes it as an Intent frame ({@code rt_reply_nanos} stamped,
 *     correlation id kept) to the data ring its priority selects ({@link Region#dataRingFor}).</li>
 * </ol>
 * Every frame that cannot be delivered is dropped and counted twice: in {@link ProxyStats} and in
 * the region's consumer line ({@link ConsumerRing#countUndeliverable()}). The RT side never waits
 * for the Android side: a full outbound ring drops and counts.
 *
 * <p>The proxy is a polling <em>server</em> with a CPU budget ({@link CpuBudget}): it may use at most
 * {@link #BUDGET_NANOS} of CPU time per {@link #BUDGET_WINDOW_NANOS} (handling frames or spinning in
 * its backoff alike), and sleeps off any excess, however long a single pass took. Without it, a
 * flood from the Android side would keep a SCHED_FIFO thread busy for 100% of a CPU, starving the
 * JVM's own SCHED_OTHER threads that every real-time thread eventually waits for, until Linux's RT
 * throttling (95% by default) stalls the whole CPU for the rest of its period. With it the proxy's
 * share of the cell's CPU is bounded whatever the other cell does.
 *
 * <p>After construction nothing here allocates (checked by a test with per-thread allocated bytes),
 * except logging the rare peer restart.
 */
public final class RtProxy implements Runnable {
    /** The lowest SCHED_FIFO priority: below every real-time component. */
    public static final int PROXY_FIFO_PRIORITY = RealtimePolicy.MIN_FIFO_PRIORITY;
    /** The spec asks for a heartbeat at least every 100 ms; half that leaves margin for a slow pass. */
    public static final long DEFAULT_HEARTBEAT_INTERVAL_NANOS = 50_000_000L;
    /** The proxy's budget window. */
    public static final long BUDGET_WINDOW_NANOS = 1_000_000L;
    /** CPU time the proxy may use in one window: 20% of the CPU at most. */
    public static final long BUDGET_NANOS = 200_000L;
    /** A pause this long is logged: cold code (or an emulated CPU) made one pass that expensive. */
    static final long LOGGED_PAUSE_NANOS = 100_000_000L;
    /** The proxy thread polls at SCHED_OTHER for at least this long before it rises to SCHED_FIFO. */
    public static final long STARTUP_NANOS = 200_000_000L;
    /** ... and at most this long, should its budget enforcer never settle. */
    static final long STARTUP_MAX_NANOS = 2_000_000_000L;

    private final Region region;
    private final CrossContextEndpoint endpoint;
    private final Backoff backoff;
    private final long heartbeatIntervalNanos;
    private final Consumer<String> log;
    private final ConsumerRing[] inbound;   // index = ring number; [0] unused (management)
    private final ProducerRing[] outbound;  // index = ring number; [0] unused
    private final long[] outboundSeq;
    private final int rings;
    private final ProxyStats stats = new ProxyStats();

    // reusable working state: touched only by the proxy thread
    private final byte[] rxBuffer;
    private final byte[] txBuffer;
    private final Frame rxFrame = new Frame();
    private final Frame txFrame = new Frame();
    private final CrossContextIntent inIntent = new CrossContextIntent();
    private final CrossContextEndpoint.OutboundReader sendOutbound = this::sendOutbound;
    private long lastHeartbeatNanos;
    private long peerEpoch;

    private volatile boolean running;
    private volatile Thread thread;
    private volatile AppliedPolicy appliedPolicy;
    private volatile BudgetEnforcer enforcer;
    private volatile RealtimePolicy risePolicy;

    /**
     * @param region attached as the RT cell (peer 0) with {@link Region#attachCell}
     * @param endpoint the runtime's cross-context endpoint ({@code RuntimeHost.crossContext()})
     * @param backoff how the proxy waits when all rings are empty (sleeps eventually, so that a
     *     SCHED_FIFO poller never monopolises a CPU)
     * @param log where the rare events go (peer restart, degraded scheduling); null = stderr
     */
    public RtProxy(Region region, CrossContextEndpoint endpoint, Backoff backoff, long heartbeatIntervalNanos,
            Consumer<String> log) {
        if (region.peerId() != Region.RT_PEER) {
            throw new IllegalArgumentException("the RT proxy runs in the RT cell (peer " + Region.RT_PEER
                    + "), not peer " + region.peerId());
        }
        if (heartbeatIntervalNanos <= 0 || heartbeatIntervalNanos > 100_000_000L) {
            throw new IllegalArgumentException("heartbeatIntervalNanos " + heartbeatIntervalNanos
                    + " must be 1..100000000 (the spec's 100 ms)");
        }
        this.region = region;
        this.endpoint = endpoint;
        this.backoff = backoff;
        this.heartbeatIntervalNanos = heartbeatIntervalNanos;
        this.log = log != null ? log : System.err::println;
        this.rings = region.layout().rings();
        this.inbound = new ConsumerRing[rings];
        this.outbound = new ProducerRing[rings];
        this.outboundSeq = new long[rings];
        for (int r = 1; r < rings; r++) {
            inbound[r] = region.consumer(r);
            outbound[r] = region.producer(r);
        }
        this.rxBuffer = new byte[region.layout().maxFrameBytes()];
        this.txBuffer = new byte[region.layout().maxFrameBytes()];
        this.peerEpoch = region.peerEpoch(region.otherPeer());
    }

    /** A proxy with the default backoff (spin 200, yield 20, sleep 20 µs .. 1 ms) and a 50 ms heartbeat. */
    public static RtProxy create(Region region, CrossContextEndpoint endpoint, Consumer<String> log) {
        return new RtProxy(region, endpoint, defaultBackoff(), DEFAULT_HEARTBEAT_INTERVAL_NANOS, log);
    }

    public static Backoff defaultBackoff() {
        return new Backoff(200, 20, 20_000L, 1_000_000L);
    }

    public ProxyStats stats() {
        return stats;
    }

    /** What the kernel applied to the proxy thread (null before it started). */
    public AppliedPolicy appliedPolicy() {
        return appliedPolicy;
    }

    /**
     * Starts the proxy thread on {@code cpus} (null: keep the affinity). It polls at SCHED_OTHER for
     * its first {@link #STARTUP_NANOS}, until its {@link BudgetEnforcer} is warm, then rises to
     * SCHED_FIFO {@link #PROXY_FIFO_PRIORITY} (see {@link #run}). Where SCHED_FIFO is not permitted
     * the runtime warns once and the thread stays SCHED_OTHER.
     */
    public synchronized Thread start(CpuSet cpus) {
        if (thread != null) {
            throw new IllegalStateException("the RT proxy is already started");
        }
        running = true;
        startEnforcer(cpus);
        risePolicy = RealtimePolicy.fifo(PROXY_FIFO_PRIORITY).withCpus(cpus);
        Thread t = RealtimeThreads.newThread("xcc-rt-proxy", RealtimePolicy.normal().withCpus(cpus), null, this);
        t.setDaemon(true);
        thread = t;
        t.start();
        return t;
    }

    /**
     * Starts the {@link BudgetEnforcer} on the proxy's CPUs: SCHED_OTHER while it warms up, then one
     * priority above the proxy. It watches the proxy once the proxy runs SCHED_FIFO.
     */
    private void startEnforcer(CpuSet cpus) {
        BudgetEnforcer e = BudgetEnforcer.forProxy(PROXY_FIFO_PRIORITY, stats);
        Thread t = RealtimeThreads.newThread("xcc-rt-budget", RealtimePolicy.normal().withCpus(cpus), null, e);
        t.setDaemon(true);
        enforcer = e;
        t.start();
    }

    /**
     * The proxy thread's scheduling as it is now, for status reports: "starting (SCHED_OTHER)"
     * before it rose, "SCHED_FIFO 1", or "SCHED_OTHER" while its budget enforcer has it demoted,
     * with the demotions so far. Reads the kernel; not for real-time paths.
     */
    public String schedulingNow() {
        AppliedPolicy a = appliedPolicy;
        long demotions = stats.get(ProxyStats.BUDGET_DEMOTIONS);
        String now;
        if (a == null) {
            now = thread == null ? "not started" : "starting (SCHED_OTHER)";
        } else {
            int policy = Linux.policyOf(a.tid());
            now = policy < 0 ? "ended" : policy == Linux.SCHED_OTHER ? "SCHED_OTHER"
                    : AppliedPolicy.policyName(policy) + " " + a.priority();
        }
        return now + ", budget demotions " + demotions;
    }

    /** The budget enforcer watching the proxy thread (null before it started). */
    public BudgetEnforcer enforcer() {
        return enforcer;
    }

    /** Stops the proxy thread and waits for it (at most {@code timeoutMillis}). */
    public void stop(long timeoutMillis) throws InterruptedException {
        running = false;
        BudgetEnforcer e = enforcer;
        if (e != null) {
            e.stop();
        }
        Thread t = thread;
        if (t != null) {
            t.join(timeoutMillis);
        }
    }

    public boolean isRunning() {
        Thread t = thread;
        return running && t != null && t.isAlive();
    }

    /**
     * The proxy thread: {@link #startUp} at SCHED_OTHER, then passes at SCHED_FIFO under its CPU
     * budget until {@link #stop}.
     */
    @Override
    public void run() {
        startUp();
        lastHeartbeatNanos = System.nanoTime();
        // The budget counts the thread's CPU time, so spinning in the backoff counts as much as
        // handling frames: only sleeping is free.
        CpuBudget budget = new CpuBudget(BUDGET_WINDOW_NANOS, BUDGET_NANOS);
        budget.restart(lastHeartbeatNanos, Linux.threadCpuNanos());
        long loggedPause = LOGGED_PAUSE_NANOS;
        long seenDemotions = 0;
        long loggedDemotions = 0;
        while (running) {
            if (doWork() > 0) {
                backoff.reset();
            } else {
                backoff.idle();
            }
            long demotions = stats.get(ProxyStats.BUDGET_DEMOTIONS);
            if (demotions != seenDemotions) {
                seenDemotions = demotions;
                BudgetEnforcer e = enforcer;
                if (e != null && demotions >= loggedDemotions * 2) { // the 1st, 2nd, 4th, ...: cannot flood
                    loggedDemotions = demotions;
                    log.accept("xcc-rt-proxy: ran " + e.lastDemotionUsedNanos() / 1_000 + " us of the last "
                            + e.lastDemotionElapsedNanos() / 1_000 + " us at SCHED_FIFO: demoted to SCHED_OTHER by "
                            + "its budget enforcer until it sleeps again (demotion " + demotions + "; its CPU time "
                            + "since it started: " + cpuSplitOfThisThread() + ")");
                }
            }
            long now = System.nanoTime();
            long pause = budget.charge(now, Linux.threadCpuNanos());
            if (pause > 0) {
                stats.increment(ProxyStats.BUDGET_EXHAUSTED);
                stats.add(ProxyStats.BUDGET_PAUSED_MICROS, pause / 1_000);
                if (pause >= loggedPause) {
                    // Rare (cold code, an emulated CPU); each new record once, so it cannot flood.
                    loggedPause = pause * 2;
                    log.accept("xcc-rt-proxy: over its CPU budget of " + BUDGET_NANOS * 100 / BUDGET_WINDOW_NANOS
                            + "%: sleeping " + pause / 1_000_000 + " ms, heartbeat only");
                }
                sleepOff(now + pause);
                budget.restart(System.nanoTime(), Linux.threadCpuNanos());
            }
        }
    }

    /**
     * This thread's CPU time so far, split into user and kernel time, for the log of a demotion:
     * a demotion after a pass that never ended (a block of ~1 s, rare, cause not found) tells by it
     * whether the proxy spun in user space (in the JVM or the JDK) or in the kernel.
     */
    static String cpuSplitOfThisThread() {
        try {
            return cpuSplit(java.nio.file.Files.readString(java.nio.file.Path.of("/proc/thread-self/stat")));
        } catch (java.io.IOException | RuntimeException e) {
            return "user/system split unknown (" + e + ")";
        }
    }

    /**
     * "user N ms, system M ms" from a {@code /proc/<pid>/task/<tid>/stat} line: fields 14 (utime)
     * and 15 (stime), in clock ticks of 10 ms (USER_HZ is 100 in Linux's ABI on x86 and arm64).
     */
    static String cpuSplit(String stat) {
        // The fields after the command name's closing parenthesis start at field 3 (state).
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        return "user " + Long.parseLong(f[14 - 3]) * 10 + " ms, system " + Long.parseLong(f[15 - 3]) * 10 + " ms";
    }

    /**
     * The thread's first passes, at SCHED_OTHER, then the rise to SCHED_FIFO.
     *
     * <p>A new thread's first steps are where the host board saw the proxy, started at SCHED_FIFO,
     * hold its CPU for hundreds of ms: once ~760 ms of user CPU in one pass, once ~330 ms of system
     * CPU before its first pass, while its budget enforcer was still warming up and could not act.
     * At SCHED_OTHER such a burst shares the CPU with the JVM's own threads instead of starving
     * them (and the real-time threads that wait for them). So the proxy polls at SCHED_OTHER for
     * {@link #STARTUP_NANOS} and until the enforcer is warm, and only then rises, watched from its
     * first SCHED_FIFO pass.
     */
    private void startUp() {
        BudgetEnforcer e = enforcer;
        long begin = System.nanoTime();
        long passes = 0;
        lastHeartbeatNanos = begin;
        while (running) {
            long now = System.nanoTime();
            boolean warm = now - begin >= STARTUP_NANOS && (e == null || e.isSettled());
            if (warm || now - begin >= STARTUP_MAX_NANOS) {
                break;
            }
            if (doWork() > 0) {
                backoff.reset();
            } else {
                backoff.idle();
            }
            passes++;
        }
        if (!running) {
            return; // stopped while starting: never rises
        }
        AppliedPolicy a = RealtimeThreads.applyToCurrentThread(risePolicy);
        appliedPolicy = a;
        log.accept("xcc-rt-proxy: polling data rings 1.." + (rings - 1) + " as " + a + " (after " + passes
                + " passes in " + (System.nanoTime() - begin) / 1_000_000 + " ms at SCHED_OTHER"
                + (e != null && !e.isSettled() ? "; its budget enforcer is not warm" : "") + ")");
        if (e != null) {
            if (a.isFifo()) {
                e.watch(a.tid());
            } else {
                e.stop(); // nothing to enforce: the proxy cannot starve anyone
            }
        }
    }

    /**
     * Sleeps until {@code wake}, still beating the heartbeat: the whole debt is slept off (paying
     * in instalments with passes between them let cold passes of tens of ms take most of the CPU),
     * but the cell is alive meanwhile and must not look dead to the other one (its peer timeout is
     * 1 s; a cold pass under emulation left seconds to sleep).
     */
    private void sleepOff(long wake) {
        for (long left = wake - System.nanoTime(); left > 0; left = wake - System.nanoTime()) {
            LockSupport.parkNanos(Math.min(left, heartbeatIntervalNanos));
            heartbeatIfDue(System.nanoTime());
        }
    }

    /**
     * One pass: heartbeat when due, at most one inbound frame, at most one outbound intent.
     * Exposed so tests (and a host that owns its own thread) can step the proxy.
     *
     * @return how many frames were handled (0..2)
     */
    public int doWork() {
        heartbeatIfDue(System.nanoTime());
        int work = 0;
        for (int r = 1; r < rings; r++) {
            ConsumerRing ring = inbound[r];
            int len = ring.poll(rxBuffer);
            if (len > 0) {
                handleInbound(ring, len);
                work++;
                break; // one frame at a time, then start again from ring 1
            }
        }
        if (endpoint.pollOutbound(sendOutbound)) {
            work++;
        }
        return work;
    }

    /** Writes the heartbeat when due and notices the Android cell's attach or restart. */
    private void heartbeatIfDue(long now) {
        if (now - lastHeartbeatNanos >= heartbeatIntervalNanos) {
            lastHeartbeatNanos = now;
            region.heartbeat();
            stats.increment(ProxyStats.HEARTBEATS);
            // Self-healing: a field of our section that the other cell changed is put back from
            // our own copy (the management ring 0 is the agent's thread's, not healed here).
            int repaired = region.heal(1);
            if (repaired > 0) {
                stats.add(ProxyStats.REPAIRS, repaired);
                log.accept("xcc-rt-proxy: put back " + repaired + " field(s) of this cell's section that another "
                        + "cell had changed (repairs so far " + region.repairs() + ")");
            }
            long epoch = region.peerEpoch(region.otherPeer());
            if (epoch != peerEpoch) {
                // epoch 0 -> n is the Android cell's first attach; any other change is a restart
                if (peerEpoch != 0) {
                    stats.increment(ProxyStats.PEER_RESTARTS);
                }
                logPeerEpoch(peerEpoch, epoch);
                peerEpoch = epoch;
            }
        }
    }

    private void handleInbound(ConsumerRing ring, int len) {
        stats.increment(ProxyStats.FRAMES_IN);
        long receivedNanos = System.nanoTime();
        int decoded = FrameCodec.decode(rxBuffer, 0, len, rxFrame);
        if (decoded != FrameCodec.OK) {
            drop(ring, decoded == FrameCodec.ERR_NO_BODY ? ProxyStats.NO_BODY : ProxyStats.UNDECODABLE);
            return;
        }
        int kind = rxFrame.bodyKind();
        if (kind == Frame.BODY_NONE) {
            drop(ring, ProxyStats.NO_BODY);
            return;
        }
        if (kind != Frame.BODY_INTENT) {
            drop(ring, ProxyStats.WRONG_KIND);
            return;
        }
        Frame.Intent intent = rxFrame.intent();
        int channelId = endpoint.channelId(intent.channel().array(), 0, intent.channel().length());
        if (channelId < 0) {
            drop(ring, ProxyStats.UNKNOWN_CHANNEL);
            return;
        }
        int priority = intent.senderPriority();
        CrossContextIntent in = inIntent.clear();
        in.setChannel(intent.channel().array(), 0, intent.channel().length());
        in.setAction(intent.action().array(), 0, intent.action().length());
        in.setSender(intent.sender().array(), 0, intent.sender().length());
        in.setSenderPriority(priority);
        in.setCorrelationId(intent.correlationId());
        in.setPayload(intent.payload().array(), 0, intent.payload().length());
        in.setRtReceiveNanos(receivedNanos);
        int result = endpoint.deliver(channelId, in);
        switch (result) {
            case CrossContextEndpoint.DELIVERED:
                stats.increment(ProxyStats.DELIVERED);
                return;
            case CrossContextEndpoint.CHANNEL_FULL:
                drop(ring, ProxyStats.RECEIVER_FULL);
                return;
            case CrossContextEndpoint.PAYLOAD_TOO_LARGE:
                drop(ring, ProxyStats.PAYLOAD_TOO_LARGE);
                return;
            case CrossContextEndpoint.NO_SUCH_CHANNEL:
                drop(ring, ProxyStats.UNKNOWN_CHANNEL);
                return;
            case CrossContextEndpoint.SENDER_NOT_ALLOWED:
                drop(ring, ProxyStats.SENDER_NOT_ALLOWED);
                return;
            case CrossContextEndpoint.WRONG_DIRECTION:
                drop(ring, ProxyStats.WRONG_DIRECTION);
                return;
            default:
                drop(ring, ProxyStats.NOT_RUNNING);
        }
    }

    private void drop(ConsumerRing ring, int reason) {
        stats.increment(reason);
        ring.countUndeliverable();
    }

    /** Encodes one outbound intent, read in place from the runtime's ring, into a frame. */
    private void sendOutbound(CrossContextIntent out) {
        if (!region.peerReady()) {
            stats.increment(ProxyStats.PEER_NOT_READY);
            return;
        }
        int priority = out.senderPriority();
        if (priority < 0) {
            priority = 0;
        } else if (priority > 99) {
            priority = 99;
        }
        int ringNo = Region.dataRingFor(priority, rings);
        long now = System.nanoTime();
        Frame f = txFrame.clear();
        f.seq(++outboundSeq[ringNo]);
        f.sendTimeNanos(now);
        Frame.Intent intent = f.selectIntent();
        intent.action().set(out.action(), 0, out.actionLength());
        intent.channel().set(out.channel(), 0, out.channelLength());
        intent.senderPriority(priority);
        intent.payload().set(out.payload(), 0, out.payloadLength());
        intent.correlationId(out.correlationId());
        intent.sender().set(out.sender(), 0, out.senderLength());
        intent.rtReceiveNanos(out.rtReceiveNanos());
        intent.rtReplyNanos(now);
        int len = FrameCodec.encode(f, txBuffer, 0);
        if (len <= 0 || len > txBuffer.length) {
            outboundSeq[ringNo]--;
            stats.increment(ProxyStats.ENCODE_FAILED);
            return;
        }
        if (outbound[ringNo].offer(txBuffer, 0, len)) {
            stats.increment(ProxyStats.FRAMES_OUT);
        } else {
            outboundSeq[ringNo]--;
            stats.increment(ProxyStats.RING_FULL); // frames_dropped_full is counted by the ring itself
        }
    }

    private void logPeerEpoch(long before, long now) {
        // Rare event: allocating a message here is acceptable (not the steady state).
        if (before == 0) {
            log.accept("xcc-rt-proxy: Android cell attached (epoch " + now + ")");
        } else {
            log.accept("xcc-rt-proxy: Android cell restarted (epoch " + before + " -> " + now + ", restart "
                    + stats.get(ProxyStats.PEER_RESTARTS) + ")");
        }
    }
}
