package org.rtdroid.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HarnessTest {
    @TempDir
    Path dir;

    @Test
    void cyclictestHistogramIsReadAtBucketMidpointsWithOverflowsAtTheMax() throws Exception {
        Path hist = dir.resolve("ct.hist");
        Files.writeString(hist, """
                # /dev/cpu_dma_latency set to 0us
                # Histogram
                000010 000090
                000011 000000
                000020 000009
                # Total: 000000100
                # Min Latencies: 00010
                # Avg Latencies: 00011
                # Max Latencies: 12345
                # Histogram Overflows: 00001
                """);
        Latency l = new Latency();
        assertEquals(1, PeriodicBench.parseHistogram(hist, l));
        assertEquals(100, l.histogram().getTotalCount());
        assertEquals(10_500, l.histogram().getValueAtPercentile(50), 10);
        assertEquals(20_500, l.histogram().getValueAtPercentile(99), 20);
        assertEquals(12_345_000, l.histogram().getMaxValue(), 12_345_000 / 1000);
    }

    @Test
    void aBrokenHistogramLineIsNamed() throws Exception {
        Path hist = dir.resolve("bad.hist");
        Files.writeString(hist, "000010\n");
        Exception e = assertThrows(java.io.IOException.class, () -> PeriodicBench.parseHistogram(hist, new Latency()));
        assertTrue(e.getMessage().contains("\"000010\""), e.getMessage());
    }

    @Test
    void badCommandLinesAreRejectedWithTheReason() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(new String[] {"x", "--fast"}, 1))
                .getMessage().contains("--fast"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(new String[] {"x", "--seconds", "-3"}, 1))
                .getMessage().contains("--seconds"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(new String[] {"x", "--cpu", "999"}, 1))
                .getMessage().contains("CPU 999"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(new String[] {"x", "--out"}, 1))
                .getMessage().contains("needs a value"));
        BenchOptions quick = BenchOptions.parse(new String[] {"x", "--quick"}, 1);
        assertTrue(quick.quick() && quick.secondsPerCase() < 2);
    }

    @Test
    void aCellRunsOnlyTheBenchmarksThatNeedNothingButItsRuntimeAndSaysWhyNot() {
        var doc = new java.io.ByteArrayOutputStream();
        var progress = new java.io.ByteArrayOutputStream();
        assertEquals(2, Main.inCell(new String[] {"looper", "--quick"}, new java.io.PrintStream(doc),
                new java.io.PrintStream(progress)));
        assertEquals(0, doc.size(), "no document");
        assertTrue(progress.toString().contains("a cell runs one of [reflection], not \"looper\""), progress.toString());
        assertEquals(2, Main.inCell(new String[] {"reflection", "--fast"}, new java.io.PrintStream(doc),
                new java.io.PrintStream(progress)));
        assertTrue(progress.toString().contains("--fast"), progress.toString());
    }

    @Test
    void theReportHasTheDocumentedShape() throws Exception {
        Report r = new Report("demo");
        Latency l = new Latency();
        for (int i = 1; i <= 1000; i++) {
            l.recordNanos(i * 1000L);
        }
        Map<String, Object> cases = new LinkedHashMap<>();
        cases.put("noise_threads", 10);
        r.row("rtdroid", cases, l.histogram(), Map.of("note", "a \"quoted\"\nline"));
        r.goal("p99 under 2 ms", "p99 990 us", true);
        String json = Files.readString(r.write(dir));
        for (String key : new String[] {"\"bench\": \"demo\"", "\"started\"", "\"host\"", "\"cpus\"", "\"kernel\"",
                "\"java\"", "\"sched_fifo_permitted\"", "\"rows\"", "\"impl\": \"rtdroid\"", "\"noise_threads\": 10",
                "\"count\": 1000", "\"p50_us\": 500", "\"p99_us\": 990", "\"p999_us\"", "\"max_us\": 1000",
                "\"goals\"", "\"met\": true", "a \\\"quoted\\\"\\nline"}) {
            assertTrue(json.contains(key), key + " missing in\n" + json);
        }
    }

    @Test
    void aThreadsNiceValueIsReadPastItsParenthesisedName() {
        // /proc/[tid]/stat: pid (comm) state ppid ... priority nice; a name may hold spaces and ')'
        String stat = "4242 (VM Thread) x) S 1 4240 4240 0 -1 4194368 12 0 0 0 5 3 0 0 10 -10 30 0 77 0";
        assertEquals(-10, JvmThreads.niceOf(stat));
        assertEquals(0, JvmThreads.niceOf("7 (java) R 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0"));
    }

    @Test
    void samplesAreKeptUpToTheirCapacityAndWrittenAsCsv() throws Exception {
        Samples s = new Samples(2, "t_ns", "latency_ns");
        s.add(0, 100);
        s.add(5, 200);
        s.add(9, 300);
        assertEquals(2, s.count());
        assertEquals(1, s.overflow());
        assertEquals(200, s.get(1, 1));
        assertThrows(IllegalArgumentException.class, () -> s.add(1));
        Path csv = dir.resolve("x/s.csv");
        s.writeCsv(csv);
        assertEquals("t_ns,latency_ns\n0,100\n5,200\n", Files.readString(csv));
    }

    @Test
    void repeatedRunsKeepTheirSamplesAndTheMaximumOfMaxima() throws Exception {
        Report r = new Report("demo", dir);
        for (int run = 1; run <= 3; run++) {
            r.run(run, 3);
            Latency l = new Latency();
            Samples s = new Samples(4, "latency_ns");
            for (long v : new long[] {1000, 2000, run * 10_000L}) {
                l.recordNanos(v);
                s.add(v);
            }
            Map<String, Object> cases = new LinkedHashMap<>();
            cases.put("noise_threads", 10);
            r.row("rtdroid", cases, l.histogram(), Map.of(), s);
        }
        String json = Files.readString(r.write(dir));
        for (String key : new String[] {"\"runs\": 3", "\"run\": 3",
                "\"samples\": \"demo.samples/run2/002_rtdroid_10.csv\"", "\"worst_case\"", "\"max_of_max_us\": 30",
                "\"max_us_per_run\""}) {
            assertTrue(json.contains(key), key + " missing in\n" + json);
        }
        assertEquals("latency_ns\n1000\n2000\n20000\n",
                Files.readString(dir.resolve("demo.samples/run2/002_rtdroid_10.csv")));
    }

    @Test
    void runsAndFullFormAreOptions() {
        BenchOptions o = BenchOptions.parse(new String[] {"x", "--full", "--runs", "10"}, 1);
        assertTrue(o.full() && o.runs() == 10 && o.secondsOr(40) == 40);
        assertEquals(3, BenchOptions.parse(new String[] {"x", "--full", "--seconds", "3"}, 1).secondsOr(40));
        assertEquals(8, BenchOptions.parse(new String[] {"x"}, 1).secondsOr(40));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(new String[] {"x", "--runs", "0"}, 1))
                .getMessage().contains("--runs"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(new String[] {"x", "--quick", "--full"}, 1))
                .getMessage().contains("exclude"));
        assertEquals("bench/run.sh looper --full --runs 10",
                Main.commandLine("looper", new String[] {"looper", "--out", "/x", "--full", "--python", "/p", "--runs", "10"}));
    }
}
