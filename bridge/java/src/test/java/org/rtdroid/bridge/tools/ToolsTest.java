package org.rtdroid.bridge.tools;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rtdroid.bridge.RegionLayout;

/** The command lines are a trust boundary: bad arguments get exit 2 and a message naming them. */
class ToolsTest {
    private static String[] run(java.util.function.ToIntFunction<String[]> tool, String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        System.setOut(new PrintStream(o, true));
        System.setErr(new PrintStream(e, true));
        try {
            int rc = tool.applyAsInt(args);
            return new String[] {Integer.toString(rc), o.toString(), e.toString()};
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }

    @Test
    void regionToolFormatsAndDumps(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("r");
        String[] r = run(RegionTool::run, "format", "--path", file.toString(), "--rings", "3", "--slots", "16",
                "--slot-bytes", "256");
        assertEquals("0", r[0], r[2]);
        assertEquals(RegionLayout.of(3, 16, 256).regionBytes(), Files.size(file));
        r = run(RegionTool::run, "dump", "--path", file.toString());
        assertEquals("0", r[0], r[2]);
        assertTrue(r[1].contains("\"rings_per_peer\":3") && r[1].contains("\"state_name\":\"RESET\""), r[1]);
        assertTrue(r[1].contains("\"frames_dropped_full\":0"), r[1]);
    }

    @Test
    void regionToolNamesBadArguments(@TempDir Path dir) {
        String[] r = run(RegionTool::run, "format", "--path", dir.resolve("r").toString(), "--rings", "3",
                "--slots", "48", "--slot-bytes", "256");
        assertEquals("1", r[0]);
        assertTrue(r[2].contains("slots_per_ring = 48"), r[2]);
        r = run(RegionTool::run, "format", "--path", "x", "--rings", "nine", "--slots", "16", "--slot-bytes", "256");
        assertEquals("2", r[0]);
        assertTrue(r[2].contains("--rings 'nine' is not an integer"), r[2]);
        r = run(RegionTool::run, "dump", "--paht", "x");
        assertEquals("2", r[0]);
        assertTrue(r[2].contains("unknown argument '--paht'"), r[2]);
        r = run(RegionTool::run, "dump", "--path", dir.resolve("missing").toString());
        assertEquals("1", r[0]);
    }

    @Test
    void regionToolRefusesADamagedRegion(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("r");
        RegionTool.format(file, RegionLayout.of(2, 4, 128));
        byte[] image = Files.readAllBytes(file);
        image[4] = 9; // layout_version
        Files.write(file, image);
        String[] r = run(RegionTool::run, "dump", "--path", file.toString());
        assertEquals("1", r[0]);
        assertTrue(r[2].contains("layout_version"), r[2]);
    }

    @Test
    void benchPeerNamesBadArguments(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("r");
        RegionTool.format(file, RegionLayout.of(3, 64, 512));
        String[] r = run(org.rtdroid.bridge.bench.BenchPeer::runForTest, "ping", "--region", file.toString(),
                "--peer", "1", "--cpu", "0", "--frame-bytes", "497", "--count", "10", "--warmup", "0",
                "--samples-out", dir.resolve("s").toString());
        assertEquals("2", r[0]);
        assertTrue(r[2].contains("--frame-bytes 497 must be between 16 and 496"), r[2]);
        r = run(org.rtdroid.bridge.bench.BenchPeer::runForTest, "echo", "--region", file.toString(), "--peer", "2",
                "--cpu", "0", "--count", "1");
        assertEquals("2", r[0]);
        assertTrue(r[2].contains("--peer 2"), r[2]);
        r = run(org.rtdroid.bridge.bench.BenchPeer::runForTest, "pong");
        assertEquals("2", r[0]);
        assertTrue(r[2].contains("unknown command 'pong'"), r[2]);
    }
}
