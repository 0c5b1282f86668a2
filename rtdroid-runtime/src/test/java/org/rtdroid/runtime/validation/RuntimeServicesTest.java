package org.rtdroid.runtime.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The runtime's own threads in the model: the alarm thread of an application with {@code <alarms>}
 * is a sporadic task at the top priority, capacity × fire cost every minimum inter-arrival time,
 * named in the task table and in an UNSCHEDULABLE verdict like any component.
 */
class RuntimeServicesTest {
    private static final Cell ONE = new Cell("one", 1, 64L << 20, 0);

    /** A receiver of 1 ms every 8 ms at 50 (the alarms' target) and {@code alarms}. */
    private static String app(String alarms) {
        return "<manifest>\n<application name=\"alarmed\">\n"
                + "<receiver name=\"pkg.Ring\" priority=\"50\" cost=\"1ms\" min-interarrival=\"8ms\">"
                + "<memSizes total=\"16K\" persistent=\"8K\" release=\"8K\"/></receiver>\n"
                + alarms + "\n</application>\n</manifest>\n";
    }

    private static ValidationReport validate(String xml) throws Exception {
        return Validation.run(ModelBuilder.read("alarmed/manifest.xml", xml.getBytes(StandardCharsets.UTF_8)), ONE);
    }

    private static Task alarmThread(ValidationReport r) {
        return r.model().tasks().stream().filter(t -> t.name().equals(RuntimeServices.ALARM_THREAD)).findFirst()
                .orElseThrow(() -> new AssertionError("no alarm thread in " + r.model().tasks()));
    }

    @Test
    void theAlarmThreadIsASporadicTaskAtTheTopPriorityAndInterferesWithTheTarget() throws Exception {
        ValidationReport r = validate(app("<alarms capacity=\"4\" strategy=\"bound\" min-interarrival=\"8ms\""
                + " fire-cost=\"100us\"/>"));
        Task a = alarmThread(r);
        assertEquals(Task.Kind.SPORADIC, a.kind());
        assertEquals(RuntimeServices.SERVICE_PRIORITY, a.priority());
        assertEquals(400_000, a.costNanos(), "4 alarms of 100 us in any 8 ms");
        assertEquals(8_000_000, a.periodNanos());
        assertEquals("alarmed/manifest.xml:4", a.source(), "the <alarms> line");
        List<ResponseTimeAnalysis.Result> results = r.cpus().get(0).results();
        assertEquals(List.of(400_000L, 1_400_000L), results.stream().map(ResponseTimeAnalysis.Result::wcrtNanos).toList(),
                "the alarm thread first, then the callback it delays");
        assertTrue(r.holds(), () -> String.join("\n", r.reasons()));
        String text = ReportText.render(r);
        assertTrue(text.contains(RuntimeServices.ALARM_THREAD), text);
    }

    @Test
    void withoutADeclaredFireCostTheDocumentedConstantIsUsed() throws Exception {
        Task a = alarmThread(validate(app("<alarms capacity=\"8\" strategy=\"bound\" min-interarrival=\"8ms\"/>")));
        assertEquals(8 * RuntimeServices.ALARM_FIRE_COST_NANOS, a.costNanos());
    }

    @Test
    void anAlarmLoadBeyondItsIntervalIsUnschedulableAndNamesTheAlarmThread() throws Exception {
        ValidationReport r = validate(app("<alarms capacity=\"64\" strategy=\"bound\" min-interarrival=\"10ms\""
                + " fire-cost=\"200us\"/>"));
        assertFalse(r.holds());
        assertTrue(r.reasons().get(0).startsWith("UNSCHEDULABLE: alarm-thread WCRT "), r.reasons().get(0));
        assertTrue(r.reasons().get(0).endsWith("> deadline 10 ms"), r.reasons().get(0));
    }

    @Test
    void anAlarmLoadThatStarvesTheTargetNamesTheTarget() throws Exception {
        // 7 fires of 1.1 ms every 8 ms (7.7 ms) leave the 1 ms callback no room before its 8 ms deadline.
        ValidationReport r = validate(app("<alarms capacity=\"7\" strategy=\"bound\" min-interarrival=\"8ms\""
                + " fire-cost=\"1100us\"/>"));
        assertEquals(1, r.reasons().size(), () -> String.join("\n", r.reasons()));
        assertTrue(r.reasons().get(0).startsWith("UNSCHEDULABLE: Ring WCRT "), r.reasons().get(0));
    }

    @Test
    void alarmsWithoutAMinimumInterArrivalTimeAreIncomplete() throws Exception {
        ValidationReport r = validate(app("<alarms capacity=\"4\" strategy=\"bound\"/>"));
        assertTrue(r.model().tasks().stream().noneMatch(t -> t.name().equals(RuntimeServices.ALARM_THREAD)));
        assertTrue(r.reasons().get(0).startsWith("INCOMPLETE: alarm-thread (alarmed/manifest.xml:4): minimum"
                + " inter-arrival time required"), r.reasons().get(0));
    }
}
