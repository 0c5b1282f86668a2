package org.rtdroid.rtcell.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rtdroid.runtime.os.FlightRecorder;

/** The agent's side of the flight recorder, against a directory laid out as tracefs. */
class CellFlightRecorderTest {
    @TempDir
    Path dir;

    @AfterEach
    void disarm() {
        FlightRecorder.disarm();
    }

    @Test
    void aFrozenTraceIsSavedAndItsEndWrittenToTheConsoleALineEach() throws Exception {
        Path t = Files.createDirectories(dir.resolve("tracing"));
        for (String f : List.of("tracing_on", "current_tracer", "trace_clock", "buffer_size_kb", "trace", "trace_marker")) {
            Files.writeString(t.resolve(f), "x");
        }
        List<String> console = new CopyOnWriteArrayList<>();
        FlightRecorder r = CellFlightRecorder.start(4_000_000, t, dir, console::add);
        assertTrue(console.get(0).startsWith("rtcell: flight recorder armed: freezes the trace at the first periodic"
                + " release over 4000 us"), console.toString());
        // what the kernel would have recorded: more than the console's share, so only the end goes out
        StringBuilder trace = new StringBuilder("# tracer: nop\n");
        for (int i = 0; trace.length() < CellFlightRecorder.TAIL_BYTES + 10_000; i++) {
            trace.append("  java-1234 [000] d..2. ").append(i).append(".000000: sched_switch: prev_comm=x\n");
        }
        trace.append(" java-1234 [000] ..... 99.0: tracing_mark_write: RTCELL READY\n");
        Files.writeString(t.resolve("trace"), trace);
        FlightRecorder.released("Svc/task".getBytes(StandardCharsets.US_ASCII), 25, 9_000_000, true);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!console.contains("rtcell: flight record ends") && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(console.contains("rtcell: flight record ends"), console.size() + " lines");
        assertTrue(console.get(1).startsWith("rtcell: flight record begins: Svc/task release 25: response 9000 us"
                + " over the bound of 4000 us; the trace (" + trace.length() + " bytes) is in the cell at "
                + dir.resolve("flight-record.txt")), console.get(1));
        assertEquals(trace.toString(), Files.readString(dir.resolve("flight-record.txt")), "saved whole");
        List<String> lines = console.subList(2, console.size() - 1);
        assertTrue(lines.stream().allMatch(l -> l.startsWith(CellFlightRecorder.TRACE_PREFIX + " java-1234 [000] ")
                || l.startsWith(CellFlightRecorder.TRACE_PREFIX + "  java-1234 [000] ")), lines.get(0));
        int shown = lines.stream().mapToInt(l -> l.length() - CellFlightRecorder.TRACE_PREFIX.length() + 1).sum();
        assertTrue(shown <= CellFlightRecorder.TAIL_BYTES && shown > CellFlightRecorder.TAIL_BYTES - 100, "bytes shown: " + shown);
        assertTrue(lines.get(lines.size() - 1).endsWith("tracing_mark_write: RTCELL READY"),
                "a marker in the trace cannot start a console line");
        assertTrue(r.frozen());
    }

    @Test
    void aCellWithoutTracefsRunsWithoutTheRecorderAndSaysWhy() {
        List<String> console = new CopyOnWriteArrayList<>();
        assertNull(CellFlightRecorder.start(4_000_000, dir.resolve("none"), dir, console::add));
        assertEquals(List.of("rtcell: flight recorder not armed: no tracefs at " + dir.resolve("none")
                + " (mount -t tracefs nodev " + dir.resolve("none") + ")"), console);
    }
}
