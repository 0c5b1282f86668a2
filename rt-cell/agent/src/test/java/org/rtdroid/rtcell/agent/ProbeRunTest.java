package org.rtdroid.rtcell.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPairGenerator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rtdroid.bridge.codec.Frame;
import org.rtdroid.rtcell.agent.client.ManagementClient;
import org.rtdroid.runtime.boot.CellConfig;
import org.rtdroid.runtime.boot.RuntimeHost;

/**
 * PROBE_RUN over a real region and a real agent: the probe's output comes back whole in
 * PROBE_OUTPUT chunks before its answer; refusals come alone. A shell script stands in for the
 * native probe (what it prints is the protocol's concern here, not what it measures; the probe
 * itself is tested in rt-cell/probes).
 */
class ProbeRunTest {
    static final long T = 10_000_000_000L;

    @TempDir
    Path work;
    @TempDir
    Path probes;
    final List<String> console = new CopyOnWriteArrayList<>();
    RuntimeHost host;
    ServingAgent cell;
    ManagementClient client;

    @BeforeEach
    void boot() throws Exception {
        host = RuntimeHost.start(CellConfig.unprivileged(1L << 20));
        var key = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        cell = new ServingAgent(rt -> new Agent(rt, host, new CellDeployments(host, key.getPublic(), work,
                DeployedVersions.inMemory()), CellSensors.unavailable("none"), new CellProbes(probes, 3, console::add),
                null, console::add));
        client = cell.client;
    }

    @AfterEach
    void stop() throws Exception {
        cell.close();
    }

    private void script(String body) throws Exception {
        Path p = probes.resolve(CellProbes.NATIVE);
        Files.writeString(p, "#!/bin/sh\n" + body);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @Test
    void theProbesRowsComeBackWholeBeforeItsAnswer() throws Exception {
        // 2,000 rows: ~60 KiB, ~160 chunks, more than the 64-slot ring holds at once
        script("i=0; while [ $i -lt 2000 ]; do echo \"{\\\"test\\\":\\\"row\\\",\\\"i\\\":$i,\\\"args\\\":\\\"$*\\\"}\"; i=$((i+1)); done\n"
                + "echo 'probe: done' >&2\n");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Frame.Control answer = client.probe("native", "--quick all", out, T);
        assertEquals(Frame.Control.ACK, answer.kind(), answer.textString());
        assertTrue(answer.textString().startsWith("exit 0 after "), answer.textString());
        String[] rows = out.toString(StandardCharsets.UTF_8).split("\n");
        assertEquals(2000, rows.length);
        assertEquals("{\"test\":\"row\",\"i\":1999,\"args\":\"--quick all --cpu 3\"}", rows[1999],
                "every row in order; the cell chose the CPU");
        assertTrue(console.contains("rtcell: probe: probe: done"), console.toString());
    }

    @Test
    void aFailingProbeIsAnErrorWithWhatItWrote() throws Exception {
        script("echo '{\"test\":\"partial\"}'; echo 'rtdroid-probe: --policy x: must be fifo or other' >&2; exit 2\n");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Frame.Control answer = client.probe("native", "--policy x", out, T);
        assertEquals(Frame.Control.ERROR, answer.kind());
        assertEquals(ResultCode.PROBE_FAILED, answer.code());
        assertTrue(answer.textString().startsWith("exit 2 after"), answer.textString());
        assertEquals("{\"test\":\"partial\"}\n", out.toString(StandardCharsets.UTF_8));
        assertTrue(console.contains("rtcell: probe: rtdroid-probe: --policy x: must be fifo or other"), console.toString());
    }

    @Test
    void refusalsComeAloneAndNameTheReason() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Frame.Control missing = client.probe("jvm", "--quick all", out, T);
        assertEquals(ResultCode.PROBE_UNAVAILABLE, missing.code());
        assertTrue(missing.textString().contains("rtjperf.jar"), missing.textString());
        Frame.Control kind = client.probe("gpu", "", out, T);
        assertEquals(ResultCode.BAD_PROBE, kind.code());
        script("echo hi\n");
        Frame.Control cpu = client.probe("native", "--cpu 0 all", out, T);
        assertEquals(ResultCode.BAD_PROBE, cpu.code());
        assertTrue(cpu.textString().contains("the cell chooses --cpu"), cpu.textString());
        Frame.Control shell = client.probe("native", "all;reboot", out, T);
        assertEquals(ResultCode.BAD_PROBE, shell.code());
        assertEquals(0, out.size(), "a refusal carries no output");
    }

    @Test
    void oneProbeAtATimeAndNoneWhileApplicationsRun() throws Exception {
        script("sleep 1; echo '{}'\n");
        CellProbes p = new CellProbes(probes, 0, console::add);
        DeployRefusal apps = org.junit.jupiter.api.Assertions.assertThrows(DeployRefusal.class, () -> p.start("native", "all", true));
        assertEquals(ResultCode.BUSY, apps.code());
        assertTrue(apps.reason().contains("applications are deployed"), apps.reason());
        p.start("native", "all", false);
        assertTrue(p.running());
        DeployRefusal second = org.junit.jupiter.api.Assertions.assertThrows(DeployRefusal.class, () -> p.start("native", "all", false));
        assertEquals(ResultCode.BUSY, second.code());
        CellProbes.Result r;
        long deadline = System.nanoTime() + T;
        while ((r = p.poll()) == null && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(ResultCode.OK, r.code(), r.text());
        assertEquals("{}\n", new String(r.output(), StandardCharsets.UTF_8));
        assertTrue(!p.running());
    }

    @Test
    void theJvmProbesOwnOutputGoesToTheConsoleNotToItsRows() throws Exception {
        // A real JVM with the probe's command: the VM's own printing (here PrintFlagsFinal, as a
        // parent's option would be copied) must leave stdout, the rows, empty.
        List<String> cmd = CellProbes.jvmCommand(Path.of(System.getProperty("java.home"), "bin", "java"),
                List.of("-XX:+PrintFlagsFinal", "-Xmx2g"), work.toString(), List.of("--quick", "all"));
        assertTrue(!cmd.contains("-Xmx2g") && cmd.contains("-Xmx" + CellProbes.JVM_HEAP), cmd.toString());
        Process p = new ProcessBuilder(cmd).start();
        byte[] stdout = p.getInputStream().readAllBytes();
        String stderr = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        assertEquals("", new String(stdout, StandardCharsets.UTF_8));
        assertTrue(stderr.contains("ThreadStackSize"), "the VM's output is on stderr");
    }

    @Test
    void theJvmProbesClassPathIsItsJarTheAgentsThenTheJarsBesideIt() throws Exception {
        for (String name : new String[] {CellProbes.JVM_JAR, "rtdroid-examples.jar", "HdrHistogram-2.2.2.jar", CellProbes.NATIVE}) {
            Files.writeString(probes.resolve(name), "");
        }
        String sep = java.io.File.pathSeparator;
        assertEquals(probes.resolve(CellProbes.JVM_JAR) + sep + "/rt/lib/agent.jar" + sep + probes.resolve("HdrHistogram-2.2.2.jar")
                + sep + probes.resolve("rtdroid-examples.jar"),
                CellProbes.jvmClassPath(probes.resolve(CellProbes.JVM_JAR), "/rt/lib/agent.jar", console::add));
    }
}
