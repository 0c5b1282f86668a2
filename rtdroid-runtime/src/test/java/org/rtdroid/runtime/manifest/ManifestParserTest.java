package org.rtdroid.runtime.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.event.HandlerStrategy;

class ManifestParserTest {
    static Manifest parse(String xml) throws ManifestException {
        return ManifestParser.parse("test.xml", new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    }

    static ManifestException error(String xml) {
        return assertThrows(ManifestException.class, () -> parse(xml));
    }

    static final String VALID = """
            <manifest>
              <application name="demo">
                <service name="pkg.ProcessingService" priority="79">
                  <memSizes total="3M" persistent="1M" release="1M"/>
                  <release start="0ms"/>
                  <periodic-task name="processingTask" wcet="1ms">
                    <priority priority="78"/>
                    <memSizes release="1M"/>
                    <release start="2ms" periodic="8ms"/>
                  </periodic-task>
                  <intent-filter count="2" role="subscriber"><action name="msgHandler"/></intent-filter>
                </service>
                <receiver name="pkg.Sender" priority="50">
                  <memSizes total="8K" persistent="4K" release="4K"/>
                  <intent-filter count="1" role="publisher"><action name="msgHandler"/></intent-filter>
                  <intent-filter count="1" role="subscriber"><action name="ui"/></intent-filter>
                </receiver>
                <channel name="msgHandler" type="rt-msg">
                  <order>priority-inheritance</order>
                  <execution>component-priority</execution>
                  <drop>priority&amp;oldest</drop>
                  <data size="256B" type="app/octet-stream"/>
                </channel>
                <channel name="ui" type="cross-context" direction="in" capacity="4">
                  <data size="224B"/>
                  <allow sender="org.example.ui"/>
                </channel>
              </application>
            </manifest>
            """;

    @Test
    void readsTheDissertationSchema() throws Exception {
        Manifest m = parse(VALID);
        assertEquals("demo", m.name());
        assertEquals(1, m.services().size());
        ComponentDecl s = m.services().get(0);
        assertEquals(79, s.priority());
        assertEquals(3L << 20, s.memSizes().totalBytes());
        PeriodicTaskDecl t = s.tasks().get(0);
        assertEquals(78, t.priority());
        assertEquals(8_000_000L, t.periodNanos());
        assertEquals(8_000_000L, t.deadlineNanos(), "deadline defaults to the period");
        assertEquals(2_000_000L, t.startNanos());
        ChannelDecl ch = m.channel("msgHandler");
        assertEquals(ChannelType.MESSAGE, ch.type());
        assertEquals(DropPolicy.PRIORITY_OLDEST, ch.drop());
        assertEquals(256, ch.dataSizeBytes());
        assertEquals(2, ch.capacity(), "default capacity: 2 x messages published per release");
        ChannelDecl ui = m.channel("ui");
        assertTrue(ui.allows("org.example.ui"));
        assertEquals(false, ui.allows("org.evil"));
        assertEquals(0.125, m.utilization(), 1e-9);
    }

    @Test
    void versionCodeIsReadFromTheRootAndMustBeAPositiveInteger() throws Exception {
        assertEquals(0, parse(VALID).versionCode(), "no versionCode: 0, refused by the RT cell agent, not here");
        assertEquals(7, parse(VALID.replace("<manifest>", "<manifest versionCode=\"7\">")).versionCode());
        assertEquals(7, parse(VALID.replace("<manifest>", "<manifest android:versionCode=\"7\">")).versionCode());
        ManifestException zero = error(VALID.replace("<manifest>", "<manifest versionCode=\"0\">"));
        assertEquals("manifest", zero.element());
        assertTrue(zero.getMessage().contains("versionCode 0 is outside 1..2147483647"), zero.getMessage());
        ManifestException word = error(VALID.replace("<manifest>", "<manifest versionCode=\"2b\">"));
        assertTrue(word.getMessage().contains("versionCode '2b' is not an integer"), word.getMessage());
        ManifestException big = error(VALID.replace("<manifest>", "<manifest versionCode=\"4294967296\">"));
        assertTrue(big.getMessage().contains("is not an integer"), big.getMessage());
    }

    @Test
    void memoryTotalMustEqualPersistentPlusReleasePlusChildren() {
        ManifestException e = error(VALID.replace("total=\"3M\"", "total=\"2M\""));
        assertEquals("test.xml", e.sourceName());
        assertEquals(4, e.line());
        assertEquals("memSizes", e.element());
        assertTrue(e.problem().contains("must equal persistent"), e.getMessage());
        assertTrue(e.getMessage().startsWith("test.xml:4:58: <memSizes>: "), e.getMessage());
    }

    @Test
    void missingAttributeNamesLineAndElement() {
        ManifestException e = error(VALID.replace("<service name=\"pkg.ProcessingService\" priority=\"79\">",
                "<service name=\"pkg.ProcessingService\">"));
        assertEquals(3, e.line());
        assertEquals("service", e.element());
        assertTrue(e.problem().contains("missing attribute 'priority'"), e.getMessage());
    }

    @Test
    void undeclaredChannelInIntentFilter() {
        ManifestException e = error(VALID.replace("<action name=\"ui\"/>", "<action name=\"nowhere\"/>"));
        assertEquals(16, e.line());
        assertEquals("intent-filter", e.element());
        assertTrue(e.problem().contains("'nowhere'"), e.getMessage());
    }

    @Test
    void crossContextPayloadMustFit224Bytes() {
        ManifestException e = error(VALID.replace("<data size=\"224B\"/>", "<data size=\"225B\"/>"));
        assertEquals("data", e.element());
        assertEquals(25, e.line());
        assertTrue(e.problem().contains("224"), e.getMessage());
    }

    @Test
    void inboundCrossContextChannelMustListSenders() {
        ManifestException e = error(VALID.replace("<allow sender=\"org.example.ui\"/>", ""));
        assertEquals("channel", e.element());
        assertTrue(e.problem().contains("allowed"), e.getMessage());
    }

    @Test
    void messageChannelNeedsExactlyOneSubscriber() {
        ManifestException e = error(VALID.replace("role=\"publisher\"><action name=\"msgHandler\"/>",
                "role=\"subscriber\"><action name=\"msgHandler\"/>"));
        assertEquals("channel", e.element());
        assertTrue(e.problem().contains("exactly one subscriber"), e.getMessage());
    }

    @Test
    void utilizationOverOneIsRejected() {
        ManifestException e = error(VALID.replace("wcet=\"1ms\"", "wcet=\"9ms\"").replace("periodic=\"8ms\"",
                "periodic=\"8ms\" deadline=\"8ms\""));
        // wcet 9 ms > deadline 8 ms is caught first, naming the task
        assertEquals("periodic-task", e.element());
        assertTrue(e.problem().contains("exceeds its deadline"), e.getMessage());
        ManifestException u = error(VALID.replace("wcet=\"1ms\"", "wcet=\"8ms\"").replace(
                "<intent-filter count=\"1\" role=\"subscriber\"><action name=\"ui\"/></intent-filter>",
                "<intent-filter count=\"1\" role=\"subscriber\"><action name=\"ui\"/></intent-filter>")
                .replace("</service>", "<periodic-task name=\"t2\" wcet=\"4ms\"><memSizes release=\"1M\"/>"
                        + "<release periodic=\"8ms\"/></periodic-task></service>").replace("total=\"3M\"", "total=\"4M\""));
        assertEquals("application", u.element());
        assertTrue(u.problem().contains("utilization"), u.getMessage());
    }

    @Test
    void badSizeAndDurationUnits() {
        ManifestException e = error(VALID.replace("periodic=\"8ms\"", "periodic=\"8\""));
        assertEquals("release", e.element());
        assertTrue(e.problem().contains("duration"), e.getMessage());
        ManifestException s = error(VALID.replace("persistent=\"1M\"", "persistent=\"lots\""));
        assertTrue(s.problem().contains("not a size"), s.getMessage());
    }

    @Test
    void malformedXmlNamesTheLine() {
        ManifestException e = error("<manifest>\n  <application name=\"x\">\n  </manifest>\n");
        assertEquals(3, e.line());
        assertTrue(e.problem().contains("not well-formed"), e.getMessage());
    }

    @Test
    void doctypeAndEntitiesAreRefused() {
        ManifestException e = error("<?xml version=\"1.0\"?>\n<!DOCTYPE m [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\n"
                + "<manifest><application name=\"&x;\"/></manifest>");
        assertTrue(e.getMessage().contains("DOCTYPE"), e.getMessage());
    }

    @Test
    void unknownElementIsNamed() {
        ManifestException e = error(VALID.replace("<release start=\"0ms\"/>", "<relase start=\"0ms\"/>"));
        assertEquals("relase", e.element());
        assertEquals(5, e.line());
    }

    @Test
    void bulkChannelIsOneToOne() {
        String xml = VALID.replace("type=\"rt-msg\"", "type=\"rt-bulk\"").replace("<drop>priority&amp;oldest</drop>", "");
        Manifest m = assertDoesNotThrow(xml);
        assertEquals(DropPolicy.OLDEST, m.channel("msgHandler").drop(), "bulk defaults to reclaiming the oldest");
    }

    /** VALID with an alarm target (a receiver that subscribes to no channel) and {@code alarms}. */
    private static String withAlarms(String alarms) {
        return VALID.replace("    <channel name=\"msgHandler\"", """
                    <receiver name="pkg.Ring" priority="40"><memSizes total="8K" persistent="4K" release="4K"/></receiver>
                """ + alarms + "\n    <channel name=\"msgHandler\"");
    }

    @Test
    void alarmsDeclareCapacityStrategyAndPoolSize() {
        assertEquals(null, assertDoesNotThrow(VALID).alarms(), "no <alarms>: no AlarmManager");
        AlarmsDecl pooled = assertDoesNotThrow(withAlarms("<alarms capacity=\"16\" strategy=\"pooled\" pool-size=\"2\"/>")).alarms();
        assertEquals(16, pooled.capacity());
        assertEquals(HandlerStrategy.POOLED, pooled.strategy());
        assertEquals(2, pooled.poolSize());
        AlarmsDecl bound = assertDoesNotThrow(withAlarms("<alarms capacity=\"4\" strategy=\"bound\"/>")).alarms();
        assertEquals(HandlerStrategy.BOUND, bound.strategy());
        assertEquals(0, bound.poolSize());
    }

    @Test
    void badAlarmsAreNamed() {
        String[][] cases = {
            {"<alarms strategy=\"bound\"/>", "missing attribute 'capacity'"},
            {"<alarms capacity=\"0\" strategy=\"bound\"/>", "capacity 0 is outside 1..4096"},
            {"<alarms capacity=\"lots\" strategy=\"bound\"/>", "capacity 'lots' is not an integer"},
            {"<alarms capacity=\"4\"/>", "missing attribute 'strategy'"},
            {"<alarms capacity=\"4\" strategy=\"fifo\"/>", "strategy must be 'bound' or 'pooled', not 'fifo'"},
            {"<alarms capacity=\"4\" strategy=\"pooled\"/>", "strategy 'pooled' needs pool-size"},
            {"<alarms capacity=\"4\" strategy=\"pooled\" pool-size=\"65\"/>", "pool-size 65 is outside 1..64"},
            {"<alarms capacity=\"4\" strategy=\"bound\" pool-size=\"2\"/>", "pool-size is only meaningful with strategy 'pooled'"},
            {"<alarms capacity=\"4\" strategy=\"bound\" size=\"2\"/>", "unexpected attribute 'size'"},
            {"<alarms capacity=\"4\" strategy=\"bound\"><x/></alarms>", "unexpected element inside <alarms>"},
            {"<alarms capacity=\"4\" strategy=\"bound\"/><alarms capacity=\"4\" strategy=\"bound\"/>", "only one <alarms>"},
        };
        for (String[] c : cases) {
            ManifestException e = error(withAlarms(c[0]));
            assertTrue(e.getMessage().contains(c[1]), c[0] + " -> " + e.getMessage());
        }
        // pkg.Sender subscribes to a channel: no receiver can take alarms.
        ManifestException e = error(VALID.replace("<channel name=\"msgHandler\"", "<alarms capacity=\"4\" strategy=\"bound\"/><channel name=\"msgHandler\""));
        assertEquals("alarms", e.element());
        assertTrue(e.getMessage().contains("needs a <receiver> that subscribes to no channel"), e.getMessage());
    }

    private static Manifest assertDoesNotThrow(String xml) {
        try {
            return parse(xml);
        } catch (ManifestException e) {
            throw new AssertionError(e.getMessage(), e);
        }
    }
}
