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

    @Test
    void boundHandlersAreCappedByTheCellsMemoryAndTheRowSaysSo() {
        long perThread = Dispatch.HANDLER_THREAD_BYTES;
        long reserve = Dispatch.MEMORY_RESERVE_BYTES;
        assertEquals(100, Dispatch.boundLowsThatFit(100, reserve + 200 * perThread));
        assertEquals(15, Dispatch.boundLowsThatFit(100, reserve + 16 * perThread), "H's thread is counted too");
        assertEquals(0, Dispatch.boundLowsThatFit(100, reserve / 2));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream rows = new PrintStream(out, true, StandardCharsets.UTF_8);
        Samples s = new Samples(4);
        s.add(1000);
        s.add(2000);
        Dispatch.row(rows, "inversion", org.rtdroid.runtime.event.HandlerStrategy.BOUND, 15, 100, "the cell's memory", s, false);
        Dispatch.unavailable(rows, "inversion", org.rtdroid.runtime.event.HandlerStrategy.BOUND, 1000, "a thread each");
        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        assertTrue(lines.get(0).contains("\"low_handlers\":15,") && lines.get(0).contains("\"requested_low_handlers\":100,")
                && lines.get(0).contains("\"capped_by\":\"the cell's memory\""), lines.get(0));
        assertEquals("{\"test\":\"inversion\",\"handler\":\"bound\",\"low_handlers\":1000,\"unavailable\":\"a thread each\"}",
                lines.get(1));
    }
    @Test
    void theP99sConfidenceIntervalIsTheOrderStatisticsABinomialCountGives() {
        // P(B <= l - 1) <= 2.5 % and P(B <= u - 1) >= 97.5 % for B ~ Binomial(n, 0.99); u capped at n
        assertEquals("[293, 300]", Arrays.toString(Samples.quantileCiRanks(300, 0.99)));
        assertEquals("[1971, 1989]", Arrays.toString(Samples.quantileCiRanks(2000, 0.99)));
        assertEquals("[0, 0]", Arrays.toString(Samples.quantileCiRanks(0, 0.99)));
        Samples s = new Samples(300);
        for (int i = 1; i <= 300; i++) {
            s.add(i);
        }
        org.rtdroid.json.JsonWriter w = new org.rtdroid.json.JsonWriter().beginObject();
        s.write(w, "latency", false);
        assertTrue(w.endObject().toString().contains("\"p99_ns\":297,\"p999_ns\":300,\"max_ns\":300,\"p99_ci_ns\":[293,300]"),
                w.toString());
    }
}
