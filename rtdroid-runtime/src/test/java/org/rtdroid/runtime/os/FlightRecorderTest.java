package org.rtdroid.runtime.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The recorder against a directory laid out as tracefs (the files it writes are plain files here,
 * so what it wrote can be read back; in the cell they are the kernel's).
 */
class FlightRecorderTest {
    private static final byte[] TASK = "ProcessingService/processingTask".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path dir;

    @AfterEach
    void disarm() {
        FlightRecorder.disarm();
    }

    private static Path tracefs(Path root) throws IOException {
        Files.createDirectories(root);
        for (String f : List.of("tracing_on", "current_tracer", "trace_clock", "buffer_size_kb", "trace", "trace_marker")) {
            Files.writeString(root.resolve(f), "x");
        }
        for (String e : List.of("sched/sched_switch", "sched/sched_wakeup", "irq", "timer")) {
            Files.createDirectories(root.resolve("events").resolve(e));
            Files.writeString(root.resolve("events").resolve(e).resolve("enable"), "0");
        }
        return root;
    }

    private static String read(Path root, String file) throws IOException {
        return Files.readString(root.resolve(file));
    }

    /**
     * What the last write left: the recorder writes through descriptors that stay open, so a plain
     * file here collects the writes one after the other (tracefs takes each write as it comes).
     */
    private static String last(Path root, String file) throws IOException {
        String text = read(root, file);
        if (file.equals("tracing_on")) {
            return text.substring(text.length() - 1);
        }
        int end = text.lastIndexOf('\n', text.length() - 2);
        return text.substring(end + 1);
    }

    @Test
    void armingSetsUpTracefsAndTurnsTracingOn() throws IOException {
        Path t = tracefs(dir);
        FlightRecorder r = FlightRecorder.arm(t, 4_000_000, 2048);
        assertEquals("1", last(t, "tracing_on"));
        assertEquals("nop", read(t, "current_tracer"));
        assertEquals("mono", read(t, "trace_clock"));
        assertEquals("2048", read(t, "buffer_size_kb"));
        assertEquals("", read(t, "trace"), "the ring is cleared");
        assertEquals("rtdroid flight recorder: armed bound 4000 us\n", read(t, "trace_marker"),
                "armed through the freeze's own code, so that it is warm");
        assertEquals("1", read(t, "events/sched/sched_switch/enable"));
        assertEquals("1", read(t, "events/timer/enable"));
        assertEquals(List.of("sched/sched_switch", "sched/sched_wakeup", "irq", "timer"), r.events(),
                "the groups this kernel has, no others");
        assertTrue(FlightRecorder.armed() == r);
        assertFalse(r.frozen());
        assertNull(r.frozenAt());
    }

    @Test
    void theFirstReleaseOverTheBoundFreezesTheTraceWithAMarkerOnce() throws IOException {
        Path t = tracefs(dir);
        FlightRecorder r = FlightRecorder.arm(t, 4_000_000, 64);
        FlightRecorder.released(TASK, 1, 3_999_999, false);
        assertFalse(r.frozen());
        assertEquals("1", last(t, "tracing_on"));
        FlightRecorder.released(TASK, 25, 8_123_456, false);
        assertTrue(r.frozen());
        assertEquals("0", last(t, "tracing_on"));
        assertEquals("rtdroid flight recorder: ProcessingService/processingTask release 25 response 8123 us over 4000 us\n",
                last(t, "trace_marker"), "the freeze's marker after the armed one");
        assertEquals("ProcessingService/processingTask release 25: response 8123 us over the bound of 4000 us", r.frozenAt());
        FlightRecorder.released(TASK, 26, 40_000_000, true);
        assertEquals("ProcessingService/processingTask release 25: response 8123 us over the bound of 4000 us", r.frozenAt(),
                "it fires once: the ring keeps what led to the first");
    }

    @Test
    void aDeadlineMissFreezesItUnderTheBoundToo() throws IOException {
        Path t = tracefs(dir);
        FlightRecorder r = FlightRecorder.arm(t, 50_000_000, 64);
        FlightRecorder.released("a/b\nc".getBytes(StandardCharsets.UTF_8), 7, 9_000_000, true);
        assertTrue(r.frozen());
        assertEquals("rtdroid flight recorder: a/b?c release 7 response 9000 us over 50000 us\n", last(t, "trace_marker"),
                "one line whatever the name holds");
    }

    @Test
    void aCallbackOverItsCostFreezesItOnceWhenArmedAndAllocatesNothing() throws IOException {
        byte[] echo = "echo/EchoReceiver".getBytes(StandardCharsets.US_ASCII);
        Path w = tracefs(dir.resolve("w"));
        FlightRecorder.overran(echo, 1, 5, 200_000, 100_000);
        assertNull(FlightRecorder.armed(), "disarmed: nothing to freeze");
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        long bytes = -1;
        for (int i = 0; i < 400; i++) {  // a warm freeze, on recorders armed one after the other
            FlightRecorder.arm(w, 50_000_000, 64);
            long before = mx.getThreadAllocatedBytes(tid);
            FlightRecorder.overran(echo, i, 14_020_615_731L, 134_100, 100_000);
            bytes = mx.getThreadAllocatedBytes(tid) - before;
        }
        assertEquals(0, bytes, "bytes allocated by a (warm) callback freeze");
        Path t = tracefs(dir);
        FlightRecorder r = FlightRecorder.arm(t, 50_000_000, 64);
        FlightRecorder.overran(echo, 34, 14_020_615_731L, 134_100, 100_000);
        assertTrue(r.frozen());
        assertEquals("0", last(t, "tracing_on"));
        assertEquals("rtdroid flight recorder: echo/EchoReceiver callback 34 began 14020615731 cpu 134 us over 100 us\n",
                last(t, "trace_marker"));
        assertEquals("echo/EchoReceiver callback 34: 134 us of CPU time over its declared cost of 100 us", r.frozenAt());
        FlightRecorder.released(TASK, 2, 90_000_000, true);
        assertEquals("echo/EchoReceiver callback 34: 134 us of CPU time over its declared cost of 100 us", r.frozenAt(),
                "it fires once, whichever trigger came first");
    }

    @Test
    void savingCopiesTheRing() throws IOException {
        Path t = tracefs(dir);
        FlightRecorder r = FlightRecorder.arm(t, 1_000_000, 64);
        Files.writeString(t.resolve("trace"), "# tracer: nop\n  java-123 [001] 10.000: sched_switch: ...\n");
        Path out = dir.resolve("flight-record.txt");
        assertEquals(Files.size(t.resolve("trace")), r.save(out));
        assertEquals(read(t, "trace"), Files.readString(out));
    }

    @Test
    void withoutTracefsArmingSaysWhatIsMissing() {
        IOException e = assertThrows(IOException.class, () -> FlightRecorder.arm(dir.resolve("none"), 1_000_000, 64));
        assertTrue(e.getMessage().startsWith("no tracefs at " + dir.resolve("none")), e.getMessage());
        assertNull(FlightRecorder.armed());
    }

    @Test
    void disarmedOrUnderTheBoundAReleaseAllocatesNothingAndTheFreezeNeither() throws IOException {
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        Path t = tracefs(dir.resolve("t"));
        // the freeze, warmed up on recorders armed one after the other (each fires once)
        long freezeBytes = -1;
        for (int i = 0; i < 400; i++) {
            FlightRecorder.arm(t, 1_000_000, 64);
            long before = mx.getThreadAllocatedBytes(tid);
            FlightRecorder.released(TASK, i, 2_000_000, false);
            freezeBytes = mx.getThreadAllocatedBytes(tid) - before;
        }
        assertEquals(0, freezeBytes, "bytes allocated by a (warm) freeze");
        FlightRecorder.arm(t, 1_000_000, 64);
        long allocated = -1;
        for (int w = 0; w < 3 && allocated != 0; w++) {
            long before = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < 100_000; i++) {
                FlightRecorder.released(TASK, i, 999_999, false);
            }
            allocated = mx.getThreadAllocatedBytes(tid) - before;
        }
        assertEquals(0, allocated, "bytes allocated by 100,000 armed releases under the bound");
        FlightRecorder.disarm();
        for (int i = 0; i < 100_000; i++) {
            FlightRecorder.released(TASK, i, 5_000_000, true);
        }
        assertEquals("1", last(t, "tracing_on"), "a disarmed recorder does nothing");
    }
}
