package org.rtdroid.runtime.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.manifest.ManifestException;

/**
 * The runtime's own threads in the model: the alarm thread of an application with {@code <alarms>}
 * is a sporadic task at the top priority, capacity × fire cost every minimum inter-arrival time;
 * the sensor polling thread of one with {@code <sensors>} one at the top priority (two devices ×
 * frame cost every minimum inter-arrival time), each listened sensor type's processing thread one
 * at the highest component priority (what it inherits from its listeners); each named in the task
 * table and in an UNSCHEDULABLE verdict like any component.
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

    /** A listener service of 1 ms every 10 ms at 80, and {@code sensors}. */
    private static String sensing(String sensors) {
        return "<manifest>\n<application name=\"sensing\">\n"
                + "<service name=\"pkg.Listener\" priority=\"80\" cost=\"1ms\" min-interarrival=\"10ms\">"
                + "<memSizes total=\"16K\" persistent=\"8K\" release=\"8K\"/></service>\n"
                + sensors + "\n</application>\n</manifest>\n";
    }

    private static ValidationReport validate(String xml) throws Exception { return validate("alarmed", xml); }

    private static ValidationReport validate(String app, String xml) throws Exception {
        return Validation.run(ModelBuilder.read(app + "/manifest.xml", xml.getBytes(StandardCharsets.UTF_8)), ONE);
    }

    private static Task task(ValidationReport r, String name) {
        return r.model().tasks().stream().filter(t -> t.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + name + " in " + r.model().tasks()));
    }

    private static Task alarmThread(ValidationReport r) { return task(r, RuntimeServices.ALARM_THREAD); }

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

    @Test
    void thePollingAndProcessingThreadsAreSporadicTasksAtTheirPriorities() throws Exception {
        ValidationReport r = validate("sensing", sensing("<sensors listeners=\"2\" queue=\"16\" strategy=\"bound\""
                + " min-interarrival=\"10ms\" frame-cost=\"100us\" processing-cost=\"300us\" types=\"accelerometer\"/>"));
        Task poll = task(r, RuntimeServices.SENSOR_POLL);
        assertEquals(Task.Kind.SPORADIC, poll.kind());
        assertEquals(RuntimeServices.SERVICE_PRIORITY, poll.priority());
        assertEquals(200_000, poll.costNanos(), "a frame of each of the two devices in any 10 ms");
        assertEquals(10_000_000, poll.periodNanos());
        assertEquals("sensing/manifest.xml:4", poll.source(), "the <sensors> line");
        Task accel = task(r, "sensor-accelerometer");
        assertEquals(80, accel.priority(), "inherited from the highest listener");
        assertEquals(300_000, accel.costNanos());
        assertEquals(10_000_000, accel.periodNanos());
        assertTrue(r.model().tasks().stream().noneMatch(t -> t.name().equals("sensor-gyroscope")), "not listened");
        // FIFO within level 80: the listener waits for the polling thread and the processing thread.
        List<ResponseTimeAnalysis.Result> results = r.cpus().get(0).results();
        assertEquals(1_500_000L, results.stream().filter(x -> x.task().name().equals("Listener")).findFirst()
                .orElseThrow().wcrtNanos());
        assertTrue(r.holds(), () -> String.join("\n", r.reasons()));
        String text = ReportText.render(r);
        assertTrue(text.contains(RuntimeServices.SENSOR_POLL) && text.contains("sensor-accelerometer"), text);
    }

    @Test
    void withoutDeclaredCostsTheDocumentedConstantsAreUsedForEveryType() throws Exception {
        ValidationReport r = validate("sensing", sensing("<sensors listeners=\"2\" queue=\"16\" strategy=\"bound\""
                + " min-interarrival=\"10ms\"/>"));
        assertEquals(2 * RuntimeServices.SENSOR_FRAME_COST_NANOS, task(r, RuntimeServices.SENSOR_POLL).costNanos());
        assertEquals(RuntimeServices.SENSOR_PROCESSING_COST_NANOS, task(r, "sensor-accelerometer").costNanos());
        assertEquals(RuntimeServices.SENSOR_PROCESSING_COST_NANOS, task(r, "sensor-gyroscope").costNanos());
        assertEquals(2 * RuntimeServices.SENSOR_PROCESSING_COST_NANOS, task(r, "sensor-orientation").costNanos(),
                "fusion takes a frame of each device");
    }

    @Test
    void aFrameLoadBeyondItsIntervalIsUnschedulableAndNamesThePollingThread() throws Exception {
        ValidationReport r = validate("sensing", sensing("<sensors listeners=\"2\" queue=\"16\" strategy=\"bound\""
                + " min-interarrival=\"1ms\" frame-cost=\"600us\" types=\"gyroscope\"/>"));
        assertFalse(r.holds());
        assertTrue(r.reasons().get(0).startsWith("UNSCHEDULABLE: sensor-poll WCRT "), r.reasons().get(0));
        assertTrue(r.reasons().get(0).endsWith("> deadline 1 ms"), r.reasons().get(0));
    }

    @Test
    void sensorsWithoutAMinimumInterArrivalTimeAreIncomplete() throws Exception {
        ValidationReport r = validate("sensing", sensing("<sensors listeners=\"2\" queue=\"16\" strategy=\"bound\"/>"));
        assertTrue(r.model().tasks().stream().noneMatch(t -> t.name().startsWith("sensor-")));
        assertTrue(r.reasons().get(0).startsWith("INCOMPLETE: sensor-poll (sensing/manifest.xml:4): minimum"
                + " inter-arrival time required"), r.reasons().get(0));
    }

    @Test
    void anUnknownSensorTypeIsOneClearError() {
        ManifestException e = assertThrows(ManifestException.class, () -> validate("sensing", sensing(
                "<sensors listeners=\"2\" queue=\"16\" strategy=\"bound\" min-interarrival=\"10ms\" types=\"barometer\"/>")));
        assertTrue(e.getMessage().contains("types: 'barometer' is not a sensor type"), e.getMessage());
        ManifestException d = assertThrows(ManifestException.class, () -> validate("sensing", sensing(
                "<sensors listeners=\"2\" queue=\"16\" strategy=\"bound\" frame-cost=\"fast\"/>")));
        assertTrue(d.getMessage().contains("'fast' is not a duration with a unit"), d.getMessage());
    }
}
