package org.rtdroid.runtime.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.manifest.ManifestException;

/** The dissertation's case study (section 5.3, Table 5.3) through the whole analysis. */
class CochlearValidationTest {
    static final Path COCHLEAR = Path.of("examples/src/main/manifests/cochlear/manifest.xml");
    static final Cell HOST = new Cell("host", 1, 64L << 20, ValidateMain.DEFAULT_RUNTIME_RESERVED_BYTES);

    /**
     * Table 5.3's three tasks: the shipped manifest without its cost-overrun handler (not in the
     * dissertation; {@code ReflectionDeploymentTest} validates the shipped manifest with it).
     */
    static String cochlear() throws IOException {
        return Files.readString(COCHLEAR).replaceAll("\\s*<!--[^>]*cheaper filter bank[^>]*-->\\s*<cost-overrun-handler[^>]*/>", "");
    }

    static String chapter5() throws IOException {
        try (InputStream in = CochlearValidationTest.class.getResourceAsStream("cochlear-chapter5.xml")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static ValidationReport validate(String xml, Cell cell) throws ManifestException {
        return Validation.run(ModelBuilder.read("cochlear/manifest.xml", xml.getBytes(StandardCharsets.UTF_8)), cell);
    }

    static List<Long> wcrtMillis(ValidationReport r) {
        return r.cpus().get(0).results().stream().map(x -> x.wcrtNanos() / 1_000_000).toList();
    }

    @Test
    void table53UtilizationAndResponseTimes() throws Exception {
        ValidationReport r = validate(cochlear(), HOST);
        assertEquals(0.375, r.cpus().get(0).utilization(), 1e-12);
        assertEquals(List.of("recordingTask", "processingTask", "OutputReceiver"),
                r.cpus().get(0).results().stream().map(x -> x.task().name()).toList());
        assertEquals(List.of(90, 89, 88), r.cpus().get(0).results().stream().map(x -> x.task().priority()).toList());
        assertEquals(List.of(1L, 2L, 3L), wcrtMillis(r));
        assertTrue(r.holds(), () -> String.join("\n", r.reasons()));
        assertTrue(ReportText.render(r).contains("Verdict: HOLDS"));
    }

    @Test
    void chapter5VocabularyGivesTheSameAnalysis() throws Exception {
        ValidationReport r = validate(chapter5(), HOST);
        assertEquals(0.375, r.cpus().get(0).utilization(), 1e-12);
        assertEquals(List.of(1L, 2L, 3L), wcrtMillis(r));
        assertTrue(r.holds(), () -> String.join("\n", r.reasons()));
        MemoryFigure processing = r.model().memory().stream().filter(f -> f.what().equals("ProcessingService")).findFirst().orElseThrow();
        assertEquals(48 * 1024, processing.totalBytes(), "the nested receiver's 8K is its own figure");
        assertEquals("cochlear/manifest.xml:17", processing.source(), "the <mem-size> line");
    }

    @Test
    void threeMillisecondCostFailsNamingTheTask() throws Exception {
        ValidationReport r = validate(cochlear().replace("wcet=\"1ms\"", "wcet=\"3ms\"").replace("cost=\"1ms\"", "cost=\"3ms\""), HOST);
        assertFalse(r.holds());
        assertEquals(List.of(3L, 6L, 9L), wcrtMillis(r));
        assertEquals(List.of("UNSCHEDULABLE: OutputReceiver WCRT 9 ms > deadline 8 ms"), r.reasons());
        assertTrue(ReportText.render(r).contains("MISSES"));
    }

    @Test
    void aReceiverWithoutCostIsIncomplete() throws Exception {
        ValidationReport r = validate(cochlear().replace(" cost=\"1ms\"", ""), HOST);
        assertFalse(r.holds());
        assertEquals(1, r.reasons().size());
        assertTrue(r.reasons().get(0).startsWith("INCOMPLETE: OutputReceiver (cochlear/manifest.xml:"), r.reasons().get(0));
        assertTrue(r.reasons().get(0).endsWith("cost required for schedulability"), r.reasons().get(0));
    }

    @Test
    void aTaskWithoutWcetIsIncompleteNotFree() throws Exception {
        ValidationReport r = validate(cochlear().replaceFirst(" wcet=\"1ms\"", ""), HOST);
        assertEquals("INCOMPLETE: recordingTask (cochlear/manifest.xml:11): cost required for schedulability", r.reasons().get(0));
    }

    @Test
    void overBudgetNamesEveryTerm() throws Exception {
        ValidationReport r = validate(cochlear(), new Cell("tiny", 1, 100_000, 40_000));
        assertFalse(r.memory().holds());
        assertEquals(List.of("OVER_BUDGET: scopes 81920 B + channels 3168 B + runtime 40000 B = 125088 B > rt_budget_bytes"
                + " 100000 B of board tiny"), r.reasons());
    }

    @Test
    void aSlowConsumerOverflowsItsChannel() throws Exception {
        // Processing every 16 ms takes 4 blocks; recording sends 2 every 8 ms into 4 slots.
        String xml = cochlear()
                .replace("<intent-filter role=\"publisher\" count=\"1\"><action name=\"cochlear.audio\"/>",
                        "<intent-filter role=\"publisher\" count=\"2\"><action name=\"cochlear.audio\"/>")
                .replace("<intent-filter role=\"subscriber\" count=\"1\"><action name=\"cochlear.audio\"/>",
                        "<intent-filter role=\"subscriber\" count=\"4\"><action name=\"cochlear.audio\"/>")
                .replace("<release start=\"4ms\" periodic=\"8ms\" deadline=\"8ms\"/>", "<release start=\"4ms\" periodic=\"16ms\"/>");
        ValidationReport r = validate(xml, HOST);
        assertEquals(List.of("CHANNEL_OVERFLOW: cochlear.audio worst-case occupancy 6 > capacity 4 for processingTask"
                + " (arrivals between two takes of 4 per 16 ms); drop oldest: the oldest queued message is lost"), r.reasons());
    }

    @Test
    void aConsumerTakingLessThanArrivesGrowsWithoutBound() throws Exception {
        String xml = cochlear().replace("<release start=\"4ms\" periodic=\"8ms\" deadline=\"8ms\"/>",
                "<release start=\"4ms\" periodic=\"16ms\"/>");
        ValidationReport r = validate(xml, HOST);
        assertEquals(List.of("CHANNEL_OVERFLOW: cochlear.audio grows without bound: 2.000 messages arrive per period 16 ms"
                + " of processingTask, which takes 1"), r.reasons());
    }

    @Test
    void aSporadicReceiverOfferedMoreThanItsRateFails() throws Exception {
        String xml = cochlear().replace("min-interarrival=\"8ms\"", "min-interarrival=\"16ms\"");
        ValidationReport r = validate(xml, HOST);
        assertEquals(1, r.reasons().size());
        assertTrue(r.reasons().get(0).startsWith("CHANNEL_OVERFLOW: cochlear.output OutputReceiver is offered 2.000 messages"
                + " per minimum inter-arrival time 16 ms"), r.reasons().get(0));
    }

    @Test
    void channelLocksBlockAndTwoCpusArePartitionedFirstFitDecreasing() throws Exception {
        String xml = cochlear().replace("<channel name=\"cochlear.output\" type=\"rt-broadcast\" capacity=\"4\">",
                "<channel name=\"cochlear.output\" type=\"rt-broadcast\" capacity=\"4\" critical-section=\"50us\">");
        ValidationReport one = validate(xml, HOST);
        ResponseTimeAnalysis.Result processing = one.cpus().get(0).results().get(1);
        assertEquals(50_000, processing.blockingNanos(), "OutputReceiver (88) holds the output lock processingTask (89) takes");
        assertEquals(2_050_000, processing.wcrtNanos());
        ValidationReport two = validate(cochlear().replace("wcet=\"1ms\"", "wcet=\"3ms\"").replace("cost=\"1ms\"", "cost=\"3ms\""),
                new Cell("two", 2, 64L << 20, 0));
        assertEquals(List.of(2, 1), two.cpus().stream().map(c -> c.results().size()).toList(),
                "3 ms of 8 each: two fit on CPU 0 (WCRT 3, 6 ms), the third goes to CPU 1");
        assertTrue(two.holds(), () -> String.join("\n", two.reasons()));
    }

    @Test
    void pinnedTasksStayOnTheirCpu() throws Exception {
        String xml = cochlear().replace("<periodic-task name=\"recordingTask\" wcet=\"1ms\">",
                "<periodic-task name=\"recordingTask\" wcet=\"1ms\" cpu=\"1\">");
        ValidationReport r = validate(xml, new Cell("two", 2, 64L << 20, 0));
        assertEquals("recordingTask", r.cpus().get(1).results().get(0).task().name());
        ValidationReport bad = validate(xml, HOST);
        assertTrue(bad.reasons().get(0).contains("cpu 1 is not one of the cell's 1 CPU(s)"), bad.reasons().get(0));
    }

    @Test
    void twoApplicationsWithTheSameTaskNamesAreToldApartAndShareTheCpu() throws Exception {
        String second = cochlear().replace("<application name=\"cochlear\">", "<application name=\"cochlear2\">");
        SystemModel both = SystemModel.union(List.of(
                ModelBuilder.read("cochlear/manifest.xml", cochlear().getBytes(StandardCharsets.UTF_8)),
                ModelBuilder.read("cochlear2/manifest.xml", second.getBytes(StandardCharsets.UTF_8))));
        ValidationReport r = Validation.run(both, HOST);
        assertEquals(0.75, r.cpus().get(0).utilization(), 1e-12);
        // Equal priorities, FIFO within the level: each counts its twin as interference.
        assertEquals(List.of(2L, 2L, 4L, 4L, 6L, 6L), wcrtMillis(r));
        assertTrue(r.holds(), () -> String.join("\n", r.reasons()));
        String text = ReportText.render(r);
        assertTrue(text.contains("cochlear/recordingTask") && text.contains("cochlear2/recordingTask"), text);
    }

    @Test
    void aDeclaredServerCarriesAperiodicWorkAndASharedObjectBlocks() throws Exception {
        String xml = cochlear()
                .replace("<receiver name=\"org.rtdroid.examples.cochlear.OutputReceiver\" priority=\"88\" cost=\"1ms\" min-interarrival=\"8ms\">",
                        "<receiver name=\"org.rtdroid.examples.cochlear.OutputReceiver\" priority=\"88\">"
                                + "<server budget=\"2ms\" period=\"8ms\" priority=\"85\"/><uses resource=\"levels\" critical-section=\"200us\"/>")
                .replace("<periodic-task name=\"recordingTask\" wcet=\"1ms\">",
                        "<periodic-task name=\"recordingTask\" wcet=\"1ms\"><uses resource=\"levels\" critical-section=\"100us\"/>");
        ValidationReport r = validate(xml, HOST);
        ResponseTimeAnalysis.Result server = r.cpus().get(0).results().get(2);
        assertEquals("OutputReceiver", server.task().name());
        assertEquals(Task.Kind.SERVER, server.task().kind());
        assertEquals(85, server.task().priority());
        assertEquals(4_000_000, server.wcrtNanos(), "2 ms budget + 1 + 1 ms of the two tasks above");
        assertEquals(200_000, r.cpus().get(0).results().get(0).blockingNanos(), "recordingTask waits for the server's section");
        assertTrue(r.holds(), () -> String.join("\n", r.reasons()));
        ManifestException bad = org.junit.jupiter.api.Assertions.assertThrows(ManifestException.class,
                () -> validate(xml.replace("priority=\"85\"/>", "priority=\"185\"/>"), HOST));
        assertTrue(bad.getMessage().endsWith("<server>: priority 185 is outside 1..99"), bad.getMessage());
    }

    @Test
    void aTaskThatNeverRunsLeavesItsChannelsUnbounded() throws Exception {
        String hog = """
                <manifest><application name="hog">
                  <service name="pkg.Hog" priority="95"><memSizes total="12K" persistent="4K" release="4K"/>
                    <periodic-task name="hogTask" wcet="7ms"><memSizes release="4K"/><release periodic="8ms"/></periodic-task>
                  </service>
                </application></manifest>
                """;
        SystemModel both = SystemModel.union(List.of(
                ModelBuilder.read("cochlear/manifest.xml", cochlear().getBytes(StandardCharsets.UTF_8)),
                ModelBuilder.read("hog/manifest.xml", hog.getBytes(StandardCharsets.UTF_8))));
        ValidationReport r = Validation.run(both, HOST);
        assertEquals(List.of(
                "UNSCHEDULABLE: processingTask WCRT unbounded > deadline 8 ms",
                "UNSCHEDULABLE: OutputReceiver WCRT unbounded > deadline 8 ms",
                "CHANNEL_OVERFLOW: cochlear.audio cannot be bounded while processingTask has no bounded response time",
                "CHANNEL_OVERFLOW: cochlear.output cannot be bounded while OutputReceiver has no bounded response time"),
                r.reasons(), "hogTask and recordingTask take the whole CPU");
    }
}
