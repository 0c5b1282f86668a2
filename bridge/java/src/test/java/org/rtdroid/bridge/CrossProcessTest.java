package org.rtdroid.bridge;

import static org.junit.jupiter.api.Assertions.*;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.rtdroid.bridge.RegionDescriptor.Counter;
import org.rtdroid.bridge.codec.Frame;
import org.rtdroid.bridge.tools.RegionTool;

/**
 * Two JVMs through a real /dev/shm region: this process is the Android peer (1) sending 10,000
 * echo intents; a child JVM is the RT peer (0) answering each. Both sides check sequences.
 */
class CrossProcessTest {
    private static final int FRAMES = 10_000;

    @Test
    void tenThousandFramesBetweenTwoProcessesThroughDevShm() throws Exception {
        Path shm = Paths.get("/dev/shm");
        Path file = (Files.isDirectory(shm) ? shm : Paths.get(System.getProperty("java.io.tmpdir")))
                .resolve("xcc-java-test-" + ProcessHandle.current().pid());
        RegionTool.format(file, RegionLayout.of(3, 64, 512));
        Process child = null;
        try (RegionMemory memory = RegionMemory.mapFile(file)) {
            Region android = Region.attachCell(memory, Region.ANDROID_PEER, false);
            String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
            child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                    CrossProcessPeer.class.getName(), file.toString(), Integer.toString(FRAMES))
                    .redirectErrorStream(true)
                    .redirectOutput(new File(file + ".log"))
                    .start();
            ProducerRing out = android.producer(1);
            ConsumerRing in = android.consumer(1);
            Frame request = new Frame();
            Frame reply = new Frame();
            byte[] encoded = new byte[496];
            byte[] scratch = new byte[496];
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (!android.peerReady()) {
                assertTrue(child.isAlive(), "child died before attaching: " + log(file));
                assertTrue(System.nanoTime() < deadline, "child never attached");
                Thread.sleep(1);
            }
            long sent = 0;
            long received = 0;
            while (received < FRAMES) {
                if (sent < FRAMES && out.backlog() < android.layout().slotsPerRing()) {
                    sent++;
                    request.clear().seq(sent).sendTimeNanos(System.nanoTime());
                    Frame.Intent ping = request.selectIntent().action("org.rtdroid.echo.PING").channel("echo")
                            .senderPriority(80).correlationId(sent * 7);
                    ping.payload().length((int) (sent % 224));
                    ping.payload().array()[0] = (byte) sent;
                    assertTrue(out.offerFrame(request, encoded) > 0);
                }
                if (in.pollFrame(scratch, reply) > 0) {
                    received++;
                    assertEquals(received, reply.seq(), "replies arrive in order");
                    assertEquals(received * 7, reply.intent().correlationId());
                    assertEquals((int) (received % 224), reply.intent().payload().length());
                    assertTrue(reply.intent().channel().contentEquals("echo"));
                } else {
                    assertTrue(System.nanoTime() < deadline, "timeout after " + received + " replies: " + log(file));
                    if (!child.isAlive() && in.available() == 0) {
                        fail("child exited " + child.exitValue() + " after " + received + " replies: " + log(file));
                    }
                }
            }
            assertTrue(child.waitFor(30, TimeUnit.SECONDS), "child did not exit");
            assertEquals(0, child.exitValue(), log(file));
            RingCounters toRt = android.counters(Region.ANDROID_PEER, 1);
            RingCounters toAndroid = android.counters(Region.RT_PEER, 1);
            assertEquals(FRAMES, toRt.get(Counter.FRAMES_ACCEPTED));
            assertEquals(FRAMES, toAndroid.get(Counter.FRAMES_ACCEPTED));
            assertEquals(0, toRt.get(Counter.FRAMES_CORRUPT) + toRt.get(Counter.RESYNCS) + toRt.get(Counter.FRAMES_UNDELIVERABLE));
            assertEquals(0, toAndroid.get(Counter.FRAMES_CORRUPT) + toAndroid.get(Counter.RESYNCS) + toAndroid.get(Counter.FRAMES_UNDELIVERABLE));
        } finally {
            if (child != null && child.isAlive()) {
                child.destroyForcibly();
            }
            Files.deleteIfExists(file);
            Files.deleteIfExists(Paths.get(file + ".log"));
        }
    }

    private static String log(Path file) {
        try {
            return Files.readString(Paths.get(file + ".log"));
        } catch (java.io.IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }
}
