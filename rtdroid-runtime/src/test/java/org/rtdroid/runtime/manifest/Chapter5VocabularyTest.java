package org.rtdroid.runtime.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Chapter 5's vocabulary parses to the same manifest as chapter 4's. */
class Chapter5VocabularyTest {
    static Manifest parse(String xml) throws ManifestException {
        return ManifestParser.parse("m.xml", new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    }

    static String chapter5() throws Exception {
        try (InputStream in = Chapter5VocabularyTest.class.getResourceAsStream("/org/rtdroid/runtime/validation/cochlear-chapter5.xml")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** What deploys: components with kind, class, priority, scopes, start; tasks with every timing. */
    static List<String> shape(Manifest m) {
        return m.components().stream().map(c -> c.kind() + " " + c.className() + " " + c.priority() + " " + c.memSizes()
                + " " + c.startNanos() + " " + c.tasks().stream().map(t -> t.name() + "/" + t.priority() + "/" + t.releaseBytes()
                + "/" + t.startNanos() + "/" + t.periodNanos() + "/" + t.deadlineNanos() + "/" + t.wcetNanos()).toList()).toList();
    }

    @Test
    void theCochlearImplantReadsTheSameInBothVocabularies() throws Exception {
        Manifest four = parse(Files.readString(Path.of("examples/src/main/manifests/cochlear/manifest.xml")));
        Manifest five = parse(chapter5());
        assertEquals(shape(four), shape(five));
        assertEquals(four.totalScopeBytes(), five.totalScopeBytes(), "the nested receiver is counted once");
    }

    @Test
    void timingDeclarationsReadCostAndMinimumInterArrivalFromBoth() throws Exception {
        TimingDeclarations five = parse(chapter5()).timing();
        TimingDeclarations.Timing receiver = five.components().get("org.rtdroid.examples.cochlear.OutputReceiver");
        assertEquals(1_000_000, receiver.costNanos());
        assertEquals(8_000_000, receiver.minInterArrivalNanos());
        assertEquals(24, receiver.line());
        TimingDeclarations four = parse(Files.readString(Path.of("examples/src/main/manifests/cochlear/manifest.xml"))).timing();
        assertEquals(receiver.costNanos(), four.components().get("org.rtdroid.examples.cochlear.OutputReceiver").costNanos());
        assertEquals(8_000_000, four.components().get("org.rtdroid.examples.cochlear.OutputReceiver").minInterArrivalNanos());
    }

    @Test
    void mistakesAreNamedWithTheirLine() throws Exception {
        String five = chapter5();
        ManifestException e = assertThrows(ManifestException.class,
                () -> parse(five.replace("<cost>1ms</cost><periodic>8ms</periodic></time>", "<cost>1ms</cost><period>8ms</period></time>")));
        assertEquals("m.xml:26:39: <period>: unexpected element inside <time> (expected <start>, <cost>, <periodic>, <deadline>, <jitter>)",
                e.getMessage());
        e = assertThrows(ManifestException.class, () -> parse(five.replace("<mem-size total=\"56K\"", "<mem-size total=\"6K\"")));
        assertEquals("m.xml:17:59: <mem-size>: total 6144 B of org.rtdroid.examples.cochlear.ProcessingService is smaller than"
                + " the 8192 B of its nested receivers", e.getMessage());
        e = assertThrows(ManifestException.class, () -> parse(five.replace("<mem-size total=\"56K\"", "<mem-size total=\"60K\"")));
        assertEquals(17, e.line(), e.getMessage());
        e = assertThrows(ManifestException.class, () -> parse(five.replace("<cost>1ms</cost><periodic>8ms", "<cost>fast</cost><periodic>8ms")));
        assertEquals("m.xml:12:39: <cost>: 'fast' is not a duration with a unit (ns, us, ms, s)", e.getMessage());
    }
}
