package org.rtdroid.runtime.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rtdroid.runtime.manifest.ManifestParserTest.VALID;
import static org.rtdroid.runtime.manifest.ManifestParserTest.error;
import static org.rtdroid.runtime.manifest.ManifestParserTest.parse;

import org.junit.jupiter.api.Test;

/** What {@code manifest.xsd} decides before any reader runs, and how its refusals read. */
class ManifestSchemaTest {

    @Test
    void aSchemaErrorNamesTheLineTheColumnAndTheElement() {
        ManifestException e = error(VALID.replace("<release start=\"2ms\" periodic=\"8ms\"/>",
                "<release start=\"2ms\" periodic=\"8ms\" every=\"8ms\"/>"));
        assertEquals(9, e.line());
        assertTrue(e.column() > 0, e.getMessage());
        assertEquals("release", e.element());
        assertTrue(e.problem().contains("unexpected attribute 'every'"), e.getMessage());
        assertTrue(e.getMessage().startsWith("test.xml:9:" + e.column() + ": <release>: "), e.getMessage());
    }

    @Test
    void aStockAndroidManifestsElementsAreAcceptedAndIgnored() throws Exception {
        String android = VALID
                .replace("<manifest>", "<manifest xmlns:android=\"http://schemas.android.com/apk/res/android\""
                        + " package=\"org.example\" android:versionCode=\"4\">\n"
                        + "  <uses-permission android:name=\"android.permission.WAKE_LOCK\"/>\n"
                        + "  <uses-sdk android:minSdkVersion=\"26\"/>")
                .replace("<application name=\"demo\">", "<application android:name=\"demo\" android:label=\"Demo\">\n"
                        + "    <activity android:name=\".Main\" android:exported=\"true\">\n"
                        + "      <intent-filter><action android:name=\"android.intent.action.MAIN\"/></intent-filter>\n"
                        + "    </activity>\n"
                        + "    <provider android:name=\".Data\" android:authorities=\"org.example.data\"/>")
                .replace("<release start=\"0ms\"/>", "<release start=\"0ms\"/><meta-data android:name=\"k\" android:value=\"v\"/>");
        Manifest m = parse(android);
        assertEquals(4, m.versionCode());
        assertEquals(describe(parse(VALID)), describe(m), "the Android elements change nothing the RT side reads");
    }

    /** What the RT side read, without line numbers (the Android elements move those). */
    private static String describe(Manifest m) {
        StringBuilder b = new StringBuilder(m.name());
        for (ComponentDecl c : m.components()) {
            b.append('|').append(c.kind()).append(' ').append(c.className()).append(' ').append(c.priority())
                    .append(' ').append(c.memSizes());
            c.tasks().forEach(t -> b.append(" task ").append(t.name()).append(' ').append(t.priority()).append(' ')
                    .append(t.periodNanos()).append(' ').append(t.deadlineNanos()).append(' ').append(t.wcetNanos()));
            c.intentFilters().forEach(f -> b.append(" filter ").append(f.role()).append(f.count()).append(f.channels()));
        }
        m.channels().forEach(ch -> b.append("|channel ").append(ch.name()).append(' ').append(ch.type()).append(' ')
                .append(ch.capacity()).append(' ').append(ch.dataSizeBytes()).append(ch.allowedSenders()));
        return b.toString();
    }

    @Test
    void anAndroidElementWhereTheRtSideReadsItsOwnIsStillRefused() {
        ManifestException e = error(VALID.replace("<memSizes release=\"1M\"/>", "<memSizes release=\"1M\"/><activity/>"));
        assertEquals("activity", e.element());
        assertTrue(e.problem().contains("unexpected"), e.getMessage());
    }

    @Test
    void numbersAreDigitsOnlyInEveryAttribute() {
        for (String bad : new String[] {"+2", " 2", "2 ", "-2", "0x2", "２", "2.0", ""}) {
            ManifestException v = error(VALID.replace("<manifest>", "<manifest versionCode=\"" + bad + "\">"));
            assertEquals("manifest", v.element(), bad);
            assertTrue(v.problem().contains("is not an integer (digits only)"), v.getMessage());
            ManifestException p = error(VALID.replace("priority=\"79\"", "priority=\"" + bad + "\""));
            assertEquals("service", p.element(), bad);
            ManifestException c = error(VALID.replace("capacity=\"4\"", "capacity=\"" + bad + "\""));
            assertEquals("channel", c.element(), bad);
        }
        for (String bad : new String[] {"+4K", " 4K", "4 K", "-4K", "4k"}) {
            ManifestException s = error(VALID.replace("persistent=\"1M\"", "persistent=\"" + bad + "\""));
            assertTrue(s.problem().contains("is not a size"), s.getMessage());
        }
        ManifestException d = error(VALID.replace("periodic=\"8ms\"", "periodic=\"+8ms\""));
        assertTrue(d.problem().contains("is not a duration"), d.getMessage());
    }

    @Test
    void aReflectionOrAHandlerStandsOnlyWhereTheSchemaPutsIt() {
        String receiver = "<memSizes total=\"8K\" persistent=\"4K\" release=\"4K\"/>";
        ManifestException r = error(VALID.replace(receiver, receiver
                + "<reflection engine-priority=\"60\" budget=\"1ms\" period=\"10ms\"/>"));
        assertEquals("reflection", r.element());
        ManifestException h = error(VALID.replace("<release start=\"2ms\" periodic=\"8ms\"/>",
                "<release start=\"2ms\" periodic=\"8ms\"/><deadline-miss-handler priority=\"80\" cost=\"1ms\" at=\"x\"/>"));
        assertTrue(h.problem().contains("unexpected attribute 'at'"), h.getMessage());
    }

    @Test
    void whatAManifestQuotesIsEscapedIntoOneLine() {
        ManifestException e = error(VALID.replace("name=\"demo\"", "name=\"abs&#10;RTCELL READY&#13;\u2028x\""));
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        assertFalse(e.getMessage().contains("\r"), e.getMessage());
        assertFalse(e.getMessage().contains("\u2028"), e.getMessage());
        assertTrue(e.getMessage().contains("abs\\nRTCELL READY\\r\\u2028x"), e.getMessage());
    }
}
