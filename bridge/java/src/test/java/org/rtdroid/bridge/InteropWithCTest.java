package org.rtdroid.bridge;

import static org.junit.jupiter.api.Assertions.*;

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
 * pings this JVM's echo. Skipped, with the reason, when the C peer is not built.
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
        Path peer = cPeer();
        Assumptions.assumeTrue(Files.isExecutable(peer), "C peer not built: " + peer);
        Path file = region("c-echo");
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
            assertEquals(FRAMES, back.framesWritten());
            assertEquals(0, back.framesCorrupt() + back.resyncs());
            assertEquals(FRAMES, android.counters(Region.ANDROID_PEER, 1).framesAccepted(),
                    "the C reader accepted (and counted) every Java frame");
        } finally {
            if (echo != null && echo.isAlive()) {
                echo.destroyForcibly();
            }
            Files.deleteIfExists(file);
        }
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
}
