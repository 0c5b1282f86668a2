package org.rtdroid.android.proxy;

import android.util.Log;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.rtdroid.bridge.Backoff;
import org.rtdroid.bridge.ConsumerRing;
import org.rtdroid.bridge.ProducerRing;
import org.rtdroid.bridge.Region;
import org.rtdroid.bridge.RegionMemory;
import org.rtdroid.bridge.codec.Frame;
import org.rtdroid.bridge.codec.FrameCodec;
import org.rtdroid.json.JsonWriter;

/**
 * The proxy's attachment to the region as the Android peer (peer 1, data rings only: ring 0 and
 * consumer line 0 belong to the management agent). One thread, "rts-proxy-link", attaches,
 * re-attaches when the region file is replaced, beats the heartbeat, watches the RT peer (state,
 * epoch, heartbeat) and drains the RT cell's data rings in ring order, one frame at a time.
 * Sends run on the caller's thread (the main looper): this thread never touches the producers.
 */
final class RtLink implements Runnable {
    static final long ATTACH_RETRY_NANOS = 250_000_000L;
    static final long HEARTBEAT_NANOS = 50_000_000L;
    static final long FILE_CHECK_NANOS = 500_000_000L;
    static final int MAX_RINGS = 8;

    private final String regionPath;
    private final ProxyCore core;
    private final long peerTimeoutNanos;
    private final Thread thread;
    /** send() offers on the app-facing thread; the link thread heals the same producers. */
    private final Object producerLock = new Object();
    private volatile boolean running = true;

    private volatile Region region;
    private volatile Object regionFileKey;
    private volatile boolean connected;
    private volatile String status = "not attached yet";
    private volatile long attaches;
    private volatile long undecodable;
    private final AtomicIntegerArray undeliverable = new AtomicIntegerArray(MAX_RINGS);

    RtLink(String regionPath, ProxyCore core, long peerTimeoutNanos) {
        this.regionPath = regionPath;
        this.core = core;
        this.peerTimeoutNanos = peerTimeoutNanos;
        this.thread = new Thread(this, "rts-proxy-link");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Region r = region;
        if (r != null) {
            // Tell the RT cell we are going: it stops sending us data frames.
            r.setState(Region.STATE_STOPPING);
        }
        connected = false;
        status = "closed";
    }

    boolean connected() {
        return connected;
    }

    String describe() {
        return status;
    }

    String regionPath() {
        return regionPath;
    }

    long attaches() {
        return attaches;
    }

    long undecodable() {
        return undecodable;
    }

    long peerRestarts() {
        Region r = region;
        return r == null ? 0 : r.peerRestarts();
    }

    /** Called from the main looper: a delivered-nowhere frame is counted on its consumer line. */
    void countUndeliverable(int ring) {
        if (ring > 0 && ring < MAX_RINGS) {
            undeliverable.incrementAndGet(ring);
        }
    }

    /**
     * Offers an encoded frame on the data ring for {@code priority}. Returns the ring used, 0 when
     * that ring is full (the frame is dropped and counted by the ring), -1 when not connected.
     */
    int send(byte[] frame, int len, int priority) {
        Region r = region;
        if (r == null || !connected) {
            return -1;
        }
        int ring = Region.dataRingFor(priority, r.layout().rings());
        ProducerRing p = r.producer(ring);
        synchronized (producerLock) { // the link thread heals the producers under it
            return p.offer(frame, 0, len) ? ring : 0;
        }
    }

    String ringsJson() {
        Region r = region;
        if (r == null) {
            return "[]";
        }
        JsonWriter w = new JsonWriter().beginArray();
        for (int ring = 1; ring < r.layout().rings(); ring++) {
            w.beginObject()
                    .field("ring", ring)
                    .rawField("out", r.counters(Region.ANDROID_PEER, ring).toJson())
                    .rawField("in", r.counters(Region.RT_PEER, ring).toJson())
                    .endObject();
        }
        return w.endArray().toString();
    }

    @Override
    public void run() {
        Frame frame = new Frame();
        byte[] rx = new byte[4096];
        Backoff backoff = new Backoff(20, 20, 20_000L, 500_000L);
        long nextAttach = 0;
        long nextHeartbeat = 0;
        long nextFileCheck = 0;
        long lastPeerBeat = -1;
        long lastPeerBeatChange = System.nanoTime();
        while (running) {
            long now = System.nanoTime();
            Region r = region;
            if (r == null) {
                if (now - nextAttach >= 0) {
                    tryAttach();
                    nextAttach = now + ATTACH_RETRY_NANOS;
                    lastPeerBeatChange = now;
                }
                sleepQuietly(20_000_000L);
                continue;
            }
            if (now - nextHeartbeat >= 0) {
                r.heartbeat();
                nextHeartbeat = now + HEARTBEAT_NANOS;
                flushUndeliverable(r);
                // Self-healing: a field of our section (state line, ring headers, consumer lines)
                // that the other cell changed is put back from our own copy.
                int repaired;
                synchronized (producerLock) {
                    repaired = r.heal(1);
                }
                if (repaired > 0) {
                    Log.w(ProxyCore.TAG, "put back " + repaired + " field(s) of this cell's section that another "
                            + "cell had changed (repairs so far " + r.repairs() + ")");
                }
                if (r.peerRestarted()) {
                    Log.i(ProxyCore.TAG, "RT cell (re)started: epoch " + r.peerEpoch(Region.RT_PEER)
                            + ", restarts seen " + r.peerRestarts());
                }
                long beat = r.peerHeartbeat(Region.RT_PEER);
                if (beat != lastPeerBeat) {
                    lastPeerBeat = beat;
                    lastPeerBeatChange = now;
                }
                int state = r.peerState(Region.RT_PEER);
                boolean alive = now - lastPeerBeatChange < peerTimeoutNanos;
                boolean nowConnected = state == Region.STATE_READY && alive;
                if (nowConnected != connected) {
                    Log.i(ProxyCore.TAG, nowConnected ? "RT cell connected (epoch " + r.peerEpoch(Region.RT_PEER) + ")"
                            : "RT cell not available: " + Region.stateName(state) + (alive ? "" : ", heartbeat stalled"));
                }
                connected = nowConnected;
                status = (nowConnected ? "connected" : "waiting") + ": RT peer " + Region.stateName(state)
                        + ", epoch " + r.peerEpoch(Region.RT_PEER) + (alive ? "" : ", heartbeat stalled")
                        + (r.repairs() > 0 ? ", own fields repaired " + r.repairs() + " times" : "")
                        + ", region " + regionPath;
            }
            if (now - nextFileCheck >= 0) {
                nextFileCheck = now + FILE_CHECK_NANOS;
                if (!Objects.equals(fileKey(), regionFileKey)) {
                    Log.w(ProxyCore.TAG, "region file " + regionPath + " replaced or removed: re-attaching");
                    region = null;
                    connected = false;
                    status = "region file replaced; re-attaching";
                    continue;
                }
            }
            if (drainOne(r, frame, rx)) {
                backoff.reset();
            } else {
                backoff.idle();
            }
        }
    }

    /** Data rings in ring order, ring 1 (most urgent) first; at most one frame per call. */
    private boolean drainOne(Region r, Frame frame, byte[] rx) {
        int rings = r.layout().rings();
        for (int ring = 1; ring < rings; ring++) {
            ConsumerRing c = r.consumer(ring);
            int n = c.poll(rx);
            if (n <= 0) {
                continue;
            }
            long readNanos = System.nanoTime();
            int rc = FrameCodec.decode(rx, 0, n, frame);
            if (rc != 0) {
                undecodable++;
                c.countUndeliverable();
                Log.w(ProxyCore.TAG, "undecodable frame on ring " + ring + ": " + FrameCodec.describe(rc));
            } else if (frame.bodyKind() != Frame.BODY_INTENT) {
                c.countUndeliverable();
                Log.w(ProxyCore.TAG, "dropped " + Frame.bodyName(frame.bodyKind())
                        + " frame on data ring " + ring + ": the Android proxy delivers intents only");
            } else {
                core.enqueueFromRt(frame, ring, readNanos);
            }
            return true;
        }
        return false;
    }

    private void flushUndeliverable(Region r) {
        for (int ring = 1; ring < Math.min(MAX_RINGS, r.layout().rings()); ring++) {
            int n = undeliverable.getAndSet(ring, 0);
            for (int i = 0; i < n; i++) {
                r.consumer(ring).countUndeliverable();
            }
        }
    }

    private void tryAttach() {
        Path p = Paths.get(regionPath);
        if (!Files.exists(p)) {
            status = "waiting for region file " + regionPath;
            return;
        }
        try {
            Object key = fileKey();
            RegionMemory mem = RegionMemory.mapFile(p);
            Region r = Region.attachCell(mem, Region.ANDROID_PEER, false);
            regionFileKey = key;
            attaches++;
            status = "attached to " + regionPath + ", waiting for the RT cell";
            region = r;
            Log.i(ProxyCore.TAG, "attached to region " + regionPath + " as the Android peer (epoch "
                    + r.peerEpoch(Region.ANDROID_PEER) + ", " + r.layout().rings() + " rings)");
        } catch (IOException | RuntimeException e) {
            String why = "cannot attach to " + regionPath + ": " + e.getMessage();
            if (!why.equals(status)) {
                Log.e(ProxyCore.TAG, why);
            }
            status = why;
        }
    }

    private Object fileKey() {
        try {
            BasicFileAttributes a = Files.readAttributes(Paths.get(regionPath), BasicFileAttributes.class);
            Object k = a.fileKey();
            return k != null ? k : a.creationTime();
        } catch (IOException e) {
            return null;
        }
    }


    private static void sleepQuietly(long nanos) {
        try {
            Thread.sleep(nanos / 1_000_000L, (int) (nanos % 1_000_000L));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
