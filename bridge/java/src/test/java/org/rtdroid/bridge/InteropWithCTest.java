package org.rtdroid.bridge;

import static org.junit.jupiter.api.Assertions.*;
import static org.rtdroid.bridge.RegionDescriptor.*;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.rtdroid.bridge.tools.RegionTool;

/**
 * Java and C in different processes through a real /dev/shm region: the C bench peer
 * (build/bridge/c/xcc_bench_peer, built by `make -C bridge/c`) echoes what this JVM sends, and
 * pings this JVM's echo, and puts back what this JVM scribbles on its section (its self-healing).
 * Skipped, with the reason, when the C peer is not built.
 */
class InteropWithCTest {
    private static final int FRAMES = 3_000;

    private static Path cPeer() {
        String dir = System.getProperty("xcc.vectors.dir");
        Path bridge = dir != null ? Paths.get(dir).getParent() : Paths.get("..");
        return bridge.resolve("../build/bridge/c/xcc_bench_peer").normalize();
    }

    private static Path region(String what) throws Exception {
        Path file = Paths.get("/dev/shm").resolve("xcc-java-interop-" + what + "-" + ProcessHandle.current().pid());
        RegionTool.format(file, RegionLayout.of(3, 64, 512));
        return file;
    }

    @Test
    void cEchoesEveryJavaFrameIntact() throws Exception {
        withCEcho("c-echo", (memory, android, echo, deadline) -> {
            byte[] reply = new byte[496];
            for (int seq = 1; seq <= FRAMES; seq++) {
                byte[] frame = TestRegions.rawFrame(seq, 16 + seq % 481);
                assertTrue(android.producer(1).offer(frame));
                int n;
                while ((n = android.consumer(1).poll(reply)) == 0) {
                    assertTrue(System.nanoTime() < deadline, "no echo of frame " + seq);
                    Thread.onSpinWait();
                }
                assertArrayEquals(frame, Arrays.copyOf(reply, n), "frame " + seq);
            }
            assertTrue(echo.waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, echo.exitValue(), new String(echo.getInputStream().readAllBytes()));
            RingCounters back = android.counters(Region.RT_PEER, 1);
            assertEquals(FRAMES, back.get(Counter.FRAMES_WRITTEN));
            assertEquals(0, back.get(Counter.FRAMES_CORRUPT) + back.get(Counter.RESYNCS));
            assertEquals(FRAMES, android.counters(Region.ANDROID_PEER, 1).get(Counter.FRAMES_ACCEPTED),
                    "the C reader accepted (and counted) every Java frame");
        });
    }

    @Test
    void javaEchoesEveryCPing() throws Exception {
        Path peer = cPeer();
        Assumptions.assumeTrue(Files.isExecutable(peer), "C peer not built: " + peer);
        Path file = region("java-echo");
        Path samples = Files.createTempFile("xcc-interop", ".bin");
        Process ping = null;
        try (RegionMemory memory = RegionMemory.mapFile(file)) {
            Region rt = Region.attachCell(memory, Region.RT_PEER, true);
            ping = new ProcessBuilder(peer.toString(), "ping", "--region", file.toString(), "--peer", "1", "--cpu",
                    "0", "--frame-bytes", "200", "--count", Integer.toString(FRAMES), "--warmup", "0",
                    "--samples-out", samples.toString()).redirectErrorStream(true).start();
            byte[] frame = new byte[496];
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            for (int i = 0; i < FRAMES; i++) {
                int n;
                while ((n = rt.consumer(1).poll(frame)) == 0) {
                    assertTrue(System.nanoTime() < deadline, "no ping " + (i + 1) + " from C");
                    Thread.onSpinWait();
                }
                assertEquals(200, n);
                assertEquals(i + 1, TestRegions.seqOf(frame), "C sends sequence numbers from 1");
                while (!rt.producer(1).offer(frame, 0, n)) {
                    Thread.onSpinWait();
                }
            }
            assertTrue(ping.waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, ping.exitValue(), new String(ping.getInputStream().readAllBytes()));
            assertEquals(8L * FRAMES, Files.size(samples), "the C ping wrote one sample per round trip");
        } finally {
            if (ping != null && ping.isAlive()) {
                ping.destroyForcibly();
            }
            Files.deleteIfExists(file);
            Files.deleteIfExists(samples);
        }
    }

    @Test
    void cPutsBackWhatJavaScribbledOnItsSection() throws Exception {
        withCEcho("c-heal", (memory, android, echo, deadline) -> {
            int half = FRAMES / 2;
            echoed(android, 1, half, deadline);
            // the echo's frames_written follows its write index: let that store land, so that the C
            // peer writes nothing of its section while idle but its heartbeat
            while (android.counters(Region.RT_PEER, 1).get(Counter.FRAMES_WRITTEN) != half) {
                assertTrue(System.nanoTime() < deadline, "C echo never counted frame " + half);
                Thread.onSpinWait();
            }
            // Scribble every field the C peer owns on ring 1 and its state line, except the heartbeat
            // it rewrites every beat (the C unit tests cover that one): both indices stop the link
            ByteBuffer b = memory.buffer().duplicate().order(ByteOrder.LITTLE_ENDIAN);
            RegionLayout layout = android.layout();
            int state = layout.stateLineOffset(Region.RT_PEER);
            int header = layout.ringHeaderOffset(Region.RT_PEER, 1);
            int line = layout.consumerLineOffset(Region.RT_PEER, 1);
            b.putInt(state + STATE_OFFSET, Region.STATE_FAILED);
            b.putInt(state + EPOCH_OFFSET, 77);
            b.putLong(header + WRITE_INDEX_OFFSET, 1L << 40);
            b.putLong(header + FRAMES_WRITTEN_OFFSET, 999);
            b.putLong(header + FRAMES_DROPPED_FULL_OFFSET, 999);
            b.putInt(header + RING_CLASS_OFFSET, 7);
            for (int off : new int[] {READ_INDEX_OFFSET, FRAMES_ACCEPTED_OFFSET, FRAMES_CORRUPT_OFFSET, RESYNCS_OFFSET,
                    FRAMES_UNDELIVERABLE_OFFSET, STALE_SKIPPED_OFFSET}) {
                b.putLong(line + off, off == READ_INDEX_OFFSET ? 1L << 40 : 999);
            }
            // the link flows again once the C peer's duty has put its fields back
            echoed(android, half + 1, FRAMES, deadline);
            assertTrue(echo.waitFor(30, TimeUnit.SECONDS));
            String out = new String(echo.getInputStream().readAllBytes());
            assertEquals(0, echo.exitValue(), out);
            assertTrue(out.contains("echoed " + FRAMES + " frames, repaired 12 fields"), out);
            assertEquals(Region.STATE_STOPPING, android.peerState(Region.RT_PEER), "set by the echo as it ends");
            assertEquals(1, android.peerEpoch(Region.RT_PEER));
            RingCounters back = android.counters(Region.RT_PEER, 1);
            assertEquals(FRAMES, back.get(Counter.WRITE_INDEX));
            assertEquals(FRAMES, back.get(Counter.FRAMES_WRITTEN));
            assertEquals(0, back.get(Counter.FRAMES_DROPPED_FULL));
            assertEquals(1, back.get(Counter.RING_CLASS));
            RingCounters there = android.counters(Region.ANDROID_PEER, 1);
            assertEquals(FRAMES, there.get(Counter.READ_INDEX));
            assertEquals(FRAMES, there.get(Counter.FRAMES_ACCEPTED));
            assertEquals(0, there.get(Counter.FRAMES_CORRUPT) + there.get(Counter.RESYNCS) + there.get(Counter.FRAMES_UNDELIVERABLE) + there.get(Counter.STALE_SKIPPED));
        });
    }

    /** What a test does with the Android side attached and the C echo READY. */
    private interface EchoSession {
        void run(RegionMemory memory, Region android, Process echo, long deadline) throws Exception;
    }

    /**
     * Runs {@code session} over a fresh region with this JVM attached as the Android cell and the C
     * bench peer echoing {@link #FRAMES} frames as the RT cell; skipped when the C peer is not built.
     */
    private static void withCEcho(String what, EchoSession session) throws Exception {
        Path peer = cPeer();
        Assumptions.assumeTrue(Files.isExecutable(peer), "C peer not built: " + peer);
        Path file = region(what);
        Process echo = null;
        try (RegionMemory memory = RegionMemory.mapFile(file)) {
            Region android = Region.attachCell(memory, Region.ANDROID_PEER, true);
            echo = new ProcessBuilder(peer.toString(), "echo", "--region", file.toString(), "--peer", "0", "--cpu",
                    "0", "--count", Integer.toString(FRAMES)).redirectErrorStream(true).start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!android.peerReady()) {
                assertTrue(echo.isAlive() && System.nanoTime() < deadline, "C echo never attached");
                Thread.sleep(1);
            }
            session.run(memory, android, echo, deadline);
        } finally {
            if (echo != null && echo.isAlive()) {
                echo.destroyForcibly();
            }
            Files.deleteIfExists(file);
        }
    }

    /** Sends frames {@code from..to} on ring 1 and checks each comes back intact; a full ring is retried. */
    private static void echoed(Region android, int from, int to, long deadline) {
        byte[] reply = new byte[496];
        for (int seq = from; seq <= to; seq++) {
            byte[] frame = TestRegions.rawFrame(seq, 16 + seq % 481);
            while (!android.producer(1).offer(frame)) {
                assertTrue(System.nanoTime() < deadline, "ring 1 never took frame " + seq);
                Thread.onSpinWait();
            }
            int n;
            while ((n = android.consumer(1).poll(reply)) == 0) {
                assertTrue(System.nanoTime() < deadline, "no echo of frame " + seq);
                Thread.onSpinWait();
            }
            assertArrayEquals(frame, Arrays.copyOf(reply, n), "frame " + seq);
        }
    }
}
