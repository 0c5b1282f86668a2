package org.rtdroid.bench.rtjperf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a run writes and leaves behind; never what it measured (timing goals live in its JSON). */
class RtjPerfTest {
    private static String run(int expectedExit, String... args) {
        ByteArrayOutputStream rows = new ByteArrayOutputStream();
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        int exit = RtjPerf.run(args, new PrintStream(rows, true, StandardCharsets.UTF_8),
                new PrintStream(progress, true, StandardCharsets.UTF_8));
        assertEquals(expectedExit, exit, progress.toString(StandardCharsets.UTF_8));
        return expectedExit == 0 ? rows.toString(StandardCharsets.UTF_8) : progress.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aQuickRunWritesEveryRowAndLeavesNoThreadBehind() {
        List<String> rows = run(0, "--quick", "alloc", "dispatch").lines().toList();
        assertTrue(rows.get(0).startsWith("{\"test\":\"jvm\","), rows.get(0));
        assertEquals(3 * Allocation.SIZES.length, rows.stream().filter(r -> r.startsWith("{\"test\":\"alloc\"")).count());
        assertTrue(rows.stream().anyMatch(r -> r.startsWith("{\"test\":\"alloc\",\"memory\":\"scoped\",\"size_bytes\":65536,")));
        assertEquals(2, rows.stream().filter(r -> r.startsWith("{\"test\":\"dispatch\"")).count());
        assertTrue(rows.stream().filter(r -> r.contains("\"handler\":\"pooled\"")).allMatch(r -> r.contains("\"trend_ns\":[")));
        long left = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("rtjperf")).count();
        assertEquals(0, left, "the run's threads and its dispatchers' are all stopped");
    }

    @Test
    void aBadCommandLineIsExitTwoNamingIt() {
        assertTrue(run(2, "--quick").contains("no test named"));
        assertTrue(run(2, "alloc", "--fast").contains("unknown test or option '--fast'"));
        assertTrue(run(2, "--cpu", "x", "alloc").contains("--cpu needs a CPU number"));
    }

    @Test
    void theWatchdogNamesThePhaseThatOverran() {
        Watchdog w = new Watchdog(0);
        w.phase("inversion pooled N=1000");
        Watchdog.Overrun e = org.junit.jupiter.api.Assertions.assertThrows(Watchdog.Overrun.class, w::check);
        assertEquals("phase 'inversion pooled N=1000' overran its bound of 0 s", e.getMessage());
        assertTrue(Arrays.asList(Thread.currentThread().getStackTrace()).size() > 0);
    }

    @Test
    void aSeriesNeverStartsMoreThanItsBoundOfThreads() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> Dispatch.series(org.rtdroid.runtime.event.HandlerStrategy.BOUND, 1000, 1,
                        p -> org.rtdroid.runtime.os.RealtimePolicy.normal(), new Watchdog(1)));
        assertTrue(e.getMessage().contains("need 1001 threads; at most 128"), e.getMessage());
        long left = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("rtjperf")).count();
        assertEquals(0, left, "refused before any thread started");
    }
}
