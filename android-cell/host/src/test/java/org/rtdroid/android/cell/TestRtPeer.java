package org.rtdroid.android.cell;

import java.nio.file.Path;

import org.rtdroid.bridge.Region;
import org.rtdroid.bridge.RegionLayout;
import org.rtdroid.bridge.RegionMemory;
import org.rtdroid.bridge.codec.Frame;
import org.rtdroid.bridge.codec.FrameCodec;

/**
 * The RT side of the region for the proxy's framework-level tests: attaches as peer 0 with the
 * bridge's Java library, beats, reads what the proxy sends and writes frames back. (The
 * integration test uses the real RT cell agent instead.)
 */
final class TestRtPeer implements AutoCloseable {
    final Region region;
    private final Thread beat;
    private volatile boolean running = true;
    private final byte[] buf = new byte[4096];
    private long seq = 1;

    private TestRtPeer(Region region) {
        this.region = region;
        beat = new Thread(() -> {
            while (running) {
                region.heartbeat();
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "test-rt-heartbeat");
        beat.setDaemon(true);
        beat.start();
    }

    static void format(Path file) throws Exception {
        java.nio.file.Files.deleteIfExists(file);
        RegionLayout layout = RegionLayout.of(3, 64, 512);
        java.nio.file.Files.write(file, new byte[(int) layout.regionBytes()]);
        try (RegionMemory mem = RegionMemory.mapFile(file)) {
            Region.format(mem, layout);
        }
    }

    static TestRtPeer attach(Path file) throws Exception {
        return new TestRtPeer(Region.attachCell(RegionMemory.mapFile(file), Region.RT_PEER, true));
    }

    /** Waits for one frame from the Android proxy on any data ring. */
    Frame receive(long timeoutMillis) throws InterruptedException {
        long end = System.nanoTime() + timeoutMillis * 1_000_000L;
        Frame f = new Frame();
        while (System.nanoTime() < end) {
            for (int ring = 1; ring < region.layout().rings(); ring++) {
                int n = region.consumer(ring).poll(buf);
                if (n > 0) {
                    int rc = FrameCodec.decode(buf, 0, n, f);
                    if (rc != 0) {
                        throw new AssertionError("proxy sent an undecodable frame: " + FrameCodec.describe(rc));
                    }
                    return f;
                }
            }
            Thread.sleep(1);
        }
        return null;
    }

    void send(String channel, String action, int priority, byte[] payload, long correlationId) {
        Frame f = new Frame();
        f.seq(seq++).sendTimeNanos(System.nanoTime());
        long now = System.nanoTime();
        f.selectIntent().action(action).channel(channel).senderPriority(priority).payload(payload)
                .correlationId(correlationId).sender("test-rt").rtReceiveNanos(now - 1000).rtReplyNanos(now);
        int len = FrameCodec.encode(f, buf, 0);
        if (len < 0) {
            throw new AssertionError(FrameCodec.describe(len));
        }
        int ring = Region.dataRingFor(priority, region.layout().rings());
        if (!region.producer(ring).offer(buf, 0, len)) {
            throw new AssertionError("ring " + ring + " full");
        }
    }

    @Override
    public void close() {
        running = false;
        beat.interrupt();
        region.setState(Region.STATE_STOPPING);
    }
}
