package org.rtdroid.rtcell.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentOptionsTest {
    @TempDir
    Path dir;

    @Test
    void parsesAll() {
        AgentOptions o = AgentOptions.parse(new String[] {"--region", "/dev/shm/x", "--deploy-key", "k.pem",
                "--cpus", "1,3-4", "--budget-bytes", "64M", "--deploy", "/tmp/b"});
        assertEquals("/dev/shm/x", o.region);
        assertArrayEquals(new int[] {1, 3, 4}, o.cpus);
        assertEquals(64L << 20, o.budgetBytes);
        assertEquals(Path.of("/tmp/b"), o.deployDir);
        AgentOptions p = AgentOptions.parse(new String[] {"--region=auto", "--deploy-key=k", "--cpus=1", "--budget-bytes=4096"});
        assertNull(p.deployDir);
        assertNull(p.stateDir, "no --state-dir: the version record lasts as long as the agent");
        assertEquals(4096, p.budgetBytes);
        assertEquals(Path.of("/var/lib/rt"), AgentOptions.parse(new String[] {"--region", "r", "--deploy-key", "k",
                "--cpus", "1", "--budget-bytes", "1", "--state-dir", "/var/lib/rt"}).stateDir);
        AgentOptions d = AgentOptions.parse(new String[] {"--region", "r", "--deploy-key", "k", "--cpus", "1",
                "--budget-bytes", "1", "--state-device", "/dev/vda"});
        assertEquals(Path.of("/dev/vda"), d.stateDevice);
        assertNull(d.stateDir);
        assertNull(p.stateDevice);
        assertEquals(0, p.flightRecorderBoundNanos, "the flight recorder is opt-in");
        assertEquals(4_000_000, AgentOptions.parse(new String[] {"--region", "r", "--deploy-key", "k", "--cpus", "1",
                "--budget-bytes", "1", "--flight-recorder", "4000"}).flightRecorderBoundNanos);
    }

    @Test
    void rejectsBadValuesNamingThem() {
        assertMessage("--cpus", "--region", "r", "--deploy-key", "k", "--cpus", "a", "--budget-bytes", "1");
        assertMessage("--budget-bytes '-5'", "--region", "r", "--deploy-key", "k", "--cpus", "1", "--budget-bytes", "-5");
        assertMessage("--region is required", "--deploy-key", "k", "--cpus", "1", "--budget-bytes", "1");
        assertMessage("unknown option --frob", "--frob", "1");
        assertMessage("needs a value", "--region");
        assertMessage("--state-dir '': must name a directory", "--region", "r", "--deploy-key", "k", "--cpus", "1",
                "--budget-bytes", "1", "--state-dir=");
        assertMessage("--state-device '': must name a block device", "--region", "r", "--deploy-key", "k", "--cpus", "1",
                "--budget-bytes", "1", "--state-device=");
        assertMessage("--state-dir /s and --state-device /dev/vda: the version record has one home", "--region", "r",
                "--deploy-key", "k", "--cpus", "1", "--budget-bytes", "1", "--state-dir", "/s", "--state-device", "/dev/vda");
        assertMessage("--state-device /dev/mem@34400000+131072: a physical range is DEVICE@0xHEXADDRESS+DECIMALBYTES",
                "--region", "r", "--deploy-key", "k", "--cpus", "1", "--budget-bytes", "1",
                "--state-device", "/dev/mem@34400000+131072");
        for (String bad : new String[] {"+4000", " 4000", "0", "4ms", "10000001", ""}) {
            assertMessage("--flight-recorder '" + bad + "': must be microseconds, digits only, 1..10000000", "--region", "r",
                    "--deploy-key", "k", "--cpus", "1", "--budget-bytes", "1", "--flight-recorder=" + bad);
        }
    }

    @Test
    void autoFindsTheIvshmemDevice() throws Exception {
        Path other = Files.createDirectories(dir.resolve("0000:00:02.0"));
        Files.writeString(other.resolve("vendor"), "0x8086\n");
        Files.writeString(other.resolve("device"), "0x1110\n");
        Path iv = Files.createDirectories(dir.resolve("0000:00:04.0"));
        Files.writeString(iv.resolve("vendor"), "0x1af4\n");
        Files.writeString(iv.resolve("device"), "0x1110\n");
        Files.write(iv.resolve("resource2"), new byte[16]);
        assertEquals(iv.resolve("resource2"), RegionLocator.locate("auto", dir));
        Files.delete(iv.resolve("resource2"));
        Files.writeString(iv.resolve("device"), "0x1000\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RegionLocator.locate("auto", dir));
        assertTrue(e.getMessage().contains("1af4"), e.getMessage());
    }

    private static void assertMessage(String part, String... args) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse(args));
        assertTrue(e.getMessage().contains(part), e.getMessage());
    }
}
