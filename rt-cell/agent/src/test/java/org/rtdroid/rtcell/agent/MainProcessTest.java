package org.rtdroid.rtcell.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rtdroid.bridge.Region;
import org.rtdroid.bridge.RegionLayout;
import org.rtdroid.bridge.RegionMemory;
import org.rtdroid.bridge.codec.Frame;
import org.rtdroid.rtcell.agent.client.ManagementClient;

/** The agent as the board starts it: a separate JVM, its console protocol, SIGTERM. */
class MainProcessTest {
    @TempDir
    Path dir;

    @Test
    void bootsPredeploysServesAndStopsCleanlyOnSigterm() throws Exception {
        RegionLayout layout = RegionLayout.of(3, 16, 512);
        Path regionFile = dir.resolve("region");
        try (RandomAccessFile f = new RandomAccessFile(regionFile.toFile(), "rw")) {
            f.setLength(layout.regionBytes());
        }
        try (RegionMemory m = RegionMemory.mapFile(regionFile)) {
            Region.format(m, layout);
        }
        KeyPair kp = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        Path pub = dir.resolve("deploy.pub");
        Files.writeString(pub, DeployKey.toPem(kp.getPublic()));
        Path bundles = Files.createDirectories(dir.resolve("bundles"));
        byte[] jar = TestApps.echoJar(dir.resolve("app"));
        Files.write(bundles.resolve("echo.rtb"), Bundle.build(TestApps.manifest("echo"), jar, kp.getPrivate()));

        RunningAgent agent = startAgent(regionFile, pub, "--deploy", bundles.toString());
        Process p = agent.process();
        List<String> lines = agent.lines();
        try {
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (!lines.contains("RTCELL READY") && p.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(lines.contains("RTCELL READY"), "agent output: " + lines);
            assertTrue(lines.contains("rtcell: region " + regionFile + " attached as peer 0, epoch 1"), lines.toString());
            assertTrue(lines.stream().anyMatch(l -> l.matches("rtcell: kernel realtime=[01] \\S+")), lines.toString());
            assertTrue(lines.contains("rtcell: deploy echo: OK (echo.rtb)"), lines.toString());

            try (RegionMemory m = RegionMemory.mapFile(regionFile)) {
                Region mgmt = Region.attachManagement(m, Region.ANDROID_PEER);
                // the agent prints RTCELL READY, then marks the cell READY as it starts serving
                while (mgmt.peerState(Region.RT_PEER) != Region.STATE_READY && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertEquals(Region.STATE_READY, mgmt.peerState(Region.RT_PEER));
                ManagementClient client = new ManagementClient(mgmt);
                assertEquals("echo/Echo", client.listServices(10_000_000_000L).get(0).service().nameString());
                assertEquals(Frame.Control.HELLO, client.request(Frame.Control.HELLO, "", 10_000_000_000L).kind());

                // SIGTERM, as the board's `down` sends it (Process.destroy would also close our end of its stdout)
                assertEquals(0, new ProcessBuilder("kill", "-TERM", Long.toString(p.pid())).start().waitFor());
                assertTrue(p.waitFor(20, TimeUnit.SECONDS), "agent did not stop on SIGTERM");
                agent.reader().join(5000);
                assertEquals(0, p.exitValue(), "exit status after SIGTERM; output " + lines);
                assertTrue(lines.contains("rtcell: stopped"), lines.toString());
                assertTrue(lines.contains("rtcell: stopping: undeploying [echo]"), lines.toString());
                assertEquals(Region.STATE_STOPPING, mgmt.peerState(Region.RT_PEER));
            }
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void awaitRegionStartsTheRuntimeThenAttachesOnceTheBoardFormatsTheRegion() throws Exception {
        RegionLayout layout = RegionLayout.of(3, 16, 512);
        Path regionFile = dir.resolve("region");
        try (RandomAccessFile f = new RandomAccessFile(regionFile.toFile(), "rw")) {
            f.setLength(layout.regionBytes());   // all zero: not formatted yet, as in a restored QEMU cell
        }
        Path pub = dir.resolve("deploy.pub");
        Files.writeString(pub, DeployKey.toPem(KeyPairGenerator.getInstance("Ed25519").generateKeyPair().getPublic()));
        RunningAgent agent = startAgent(regionFile, pub, "--await-region");
        Process p = agent.process();
        List<String> lines = agent.lines();
        String awaiting = "rtcell: runtime started; awaiting the region " + regionFile + " to be formatted";
        try {
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (!lines.contains(awaiting) && p.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(lines.contains(awaiting), "agent output: " + lines);
            Thread.sleep(300);
            assertTrue(p.isAlive(), "the agent must wait for the region, not fail: " + lines);
            assertTrue(!lines.contains("RTCELL READY"), lines.toString());

            try (RegionMemory m = RegionMemory.mapFile(regionFile)) {
                Region.format(m, layout);
                while (!lines.contains("RTCELL READY") && p.isAlive() && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertTrue(lines.contains("RTCELL READY"), "agent output: " + lines);
                assertTrue(lines.contains("rtcell: region " + regionFile + " attached as peer 0, epoch 1"), lines.toString());
                Region mgmt = Region.attachManagement(m, Region.ANDROID_PEER);
                // the agent prints RTCELL READY, then marks the cell READY as it starts serving
                while (mgmt.peerState(Region.RT_PEER) != Region.STATE_READY && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertEquals(Region.STATE_READY, mgmt.peerState(Region.RT_PEER));
            }
            assertEquals(0, new ProcessBuilder("kill", "-TERM", Long.toString(p.pid())).start().waitFor());
            assertTrue(p.waitFor(20, TimeUnit.SECONDS), "agent did not stop on SIGTERM");
            assertEquals(0, p.exitValue(), "exit status after SIGTERM; output " + lines);
        } finally {
            p.destroyForcibly();
        }
    }

    /**
     * The record in a state directory (host board), or on a state device (QEMU cell: a raw disk
     * without a file system, here a regular file of the disk's size standing in for it; the
     * qemu board's Robot suite runs the real virtio disk).
     */
    @ParameterizedTest
    @ValueSource(strings = {"--state-dir", "--state-device"})
    void anOlderBundleIsRefusedAfterTheAgentRestartsWithItsState(String option) throws Exception {
        RegionLayout layout = RegionLayout.of(3, 16, 512);
        Path regionFile = dir.resolve("region");
        KeyPair kp = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        Path pub = dir.resolve("deploy.pub");
        Files.writeString(pub, DeployKey.toPem(kp.getPublic()));
        byte[] jar = TestApps.echoJar(dir.resolve("app"));
        Path state = dir.resolve("state");
        Path record = state.resolve("versions");
        if (option.equals("--state-device")) {
            record = state = dir.resolve("state.img");
            Files.write(state, new byte[(int) BlockDeviceStore.DEVICE_BYTES]); // a blank disk
        }
        String[] lines = new String[2];
        for (int version = 2; version >= 1; version--) { // version 2, then, after a restart, version 1
            try (RandomAccessFile f = new RandomAccessFile(regionFile.toFile(), "rw")) {
                f.setLength(layout.regionBytes());
            }
            try (RegionMemory m = RegionMemory.mapFile(regionFile)) {
                Region.format(m, layout);
            }
            Path bundles = Files.createDirectories(dir.resolve("bundles-" + version));
            Files.write(bundles.resolve("echo.rtb"), Bundle.build(TestApps.versioned("echo", version), jar, kp.getPrivate()));
            RunningAgent agent = startAgent(regionFile, pub, "--deploy", bundles.toString(), option, state.toString());
            Process p = agent.process();
            try {
                long deadline = System.nanoTime() + 60_000_000_000L;
                while (!agent.lines().contains("RTCELL READY") && p.isAlive() && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertTrue(agent.lines().contains("RTCELL READY"), "agent output: " + agent.lines());
                assertEquals(0, new ProcessBuilder("kill", "-TERM", Long.toString(p.pid())).start().waitFor());
                assertTrue(p.waitFor(20, TimeUnit.SECONDS), "agent did not stop on SIGTERM");
                agent.reader().join(5000);
                lines[2 - version] = String.join("\n", agent.lines());
            } finally {
                p.destroyForcibly();
            }
        }
        assertTrue(lines[0].contains("rtcell: versions of 0 application(s) read from " + record), lines[0]);
        assertTrue(lines[0].contains("rtcell: deploy echo: OK (echo.rtb)"), lines[0]);
        assertTrue(lines[1].contains("rtcell: versions of 1 application(s) read from " + record + "\n"), lines[1]);
        assertTrue(lines[1].contains("rtcell: recorded version: echo 2\n"), lines[1]);
        assertTrue(lines[1].contains("rtcell: deploy echo.rtb: DOWNGRADE: echo version 1 < deployed 2"), lines[1]);
    }

    /** The agent's JVM, and its output lines as a reader thread collects them. */
    private record RunningAgent(Process process, List<String> lines, Thread reader) {
    }

    /** The agent in its own JVM, as the board starts it, with stdout and stderr merged. */
    private static RunningAgent startAgent(Path regionFile, Path pub, String... extra) throws java.io.IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> cmd = new java.util.ArrayList<>(List.of(java.toString(), "--enable-native-access=ALL-UNNAMED",
                "-XX:+UseZGC", "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "--region", regionFile.toString(), "--deploy-key", pub.toString(), "--cpus", "0", "--budget-bytes", "1M"));
        cmd.addAll(List.of(extra));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        List<String> lines = new CopyOnWriteArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    lines.add(line);
                }
            } catch (java.io.IOException ignored) {
                // process gone
            }
        });
        reader.start();
        return new RunningAgent(p, lines, reader);
    }

    @Test
    void badCommandLinesExitTwoNamingTheProblem() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        PrintStream o = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        assertEquals(2, Main.run(new String[] {"--region", "auto", "--deploy-key", "k", "--cpus", "1", "--budget-bytes", "1M"},
                o, e, dir));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("no ivshmem PCI device"), err.toString(StandardCharsets.UTF_8));
        err.reset();
        assertEquals(2, Main.run(new String[] {"--region", dir.toString(), "--deploy-key", dir.resolve("none.pem").toString(),
                "--cpus", "1", "--budget-bytes", "1M"}, o, e, dir));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("none.pem"), err.toString(StandardCharsets.UTF_8));
        err.reset();
        assertEquals(2, Main.run(new String[] {"--cpus", "x"}, o, e, dir));
    }
}
