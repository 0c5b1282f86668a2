package org.rtdroid.runtime.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The Cheddar export checked against Cheddar's published format, as far as public facts go
 * (Cheddar itself is not installed here, so the export is never loaded by Cheddar):
 * <ul>
 *   <li>the root {@code cheddar} and the order of its sections as Cheddar's own writer emits them
 *       ({@code xml_string} of {@code system} in Cheddar's {@code systems.adb}, SVN rev 5119):
 *       core_units, processors, address_spaces, tasks, buffers;</li>
 *   <li>Cheddar ADL's legality rules (Lab-STICC, {@code docs/cheddar_adl/sections/core.tex},
 *       {@code processor.tex}, {@code task.tex}, {@code buffer.tex} of Cheddar's SVN trunk): names
 *       are valid identifiers and unique; a mono-core processor has a core; a task's period is &gt; 0,
 *       its capacity a natural &gt; 0, its policy SCHED_FIFO, SCHED_RR or SCHED_OTHERS; a buffer has
 *       a processor, an address space and a size &gt; 0, and each role a size;</li>
 *   <li>the consistency check of Cheddar's reader ({@code check_entity_location} in
 *       {@code systems.adb}): an entity's address space lies on the entity's own processor;</li>
 *   <li>references resolve: cpu_name to a processor, address_space_name to an address space, a
 *       processor's core to a core unit, a buffer role to a task.</li>
 * </ul>
 * Checked for the cochlear implant on one CPU (the golden file's system), partitioned on two, and
 * two applications with the same task names.
 */
class CheddarExportFormatTest {
    /** Cheddar's writer order of the sections this export uses. */
    private static final List<String> SECTION_ORDER = List.of("core_units", "processors", "address_spaces", "tasks",
            "buffers");
    /** A valid Ada identifier: a letter, then letters and digits, single underscores between. */
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z](_?[A-Za-z0-9])*");
    private static final Set<String> POLICIES = Set.of("SCHED_FIFO", "SCHED_RR", "SCHED_OTHERS");

    private static Document parse(String xml) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return f.newDocumentBuilder().parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    }

    private static List<Element> children(Element e) {
        List<Element> out = new ArrayList<>();
        for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element c) {
                out.add(c);
            }
        }
        return out;
    }

    private static String field(Element e, String name) {
        for (Element c : children(e)) {
            if (c.getTagName().equals(name)) {
                return c.getTextContent();
            }
        }
        throw new AssertionError(e.getTagName() + " " + e.getAttribute("id") + " has no <" + name + ">");
    }

    private static long natural(Element e, String name) {
        long v = Long.parseLong(field(e, name));
        assertTrue(v >= 0, e.getAttribute("id") + ": " + name + " " + v + " is not a natural");
        return v;
    }

    private static Element section(Document d, String name) {
        for (Element c : children(d.getDocumentElement())) {
            if (c.getTagName().equals(name)) {
                return c;
            }
        }
        return null;
    }

    /** Every check of the class comment; fails with what is wrong. */
    static void assertCheddarFormat(String xml) throws Exception {
        Document d = parse(xml);
        assertEquals("cheddar", d.getDocumentElement().getTagName());
        List<String> sections = children(d.getDocumentElement()).stream().map(Element::getTagName).toList();
        assertEquals(SECTION_ORDER.stream().filter(sections::contains).toList(), sections, "sections in Cheddar's order");

        Set<String> cores = new HashSet<>();
        for (Element core : children(section(d, "core_units"))) {
            assertEquals("core_unit", core.getTagName());
            assertEquals("CORE_OBJECT_TYPE", field(core, "object_type"));
            identifier(field(core, "name"));
            Element params = children(children(core).stream().filter(c -> c.getTagName().equals("scheduling"))
                    .findFirst().orElseThrow()).get(0);
            assertEquals("scheduling_parameters", params.getTagName());
            assertEquals("POSIX_1003_HIGHEST_PRIORITY_FIRST_PROTOCOL", field(params, "scheduler_type"));
            assertEquals("PREEMPTIVE", field(params, "preemptive_type"));
            natural(params, "quantum");
            natural(params, "start_time");
            cores.add(field(core, "name"));
        }
        Set<String> processors = new HashSet<>();
        for (Element p : children(section(d, "processors"))) {
            assertEquals("mono_core_processor", p.getTagName());
            assertEquals("PROCESSOR_OBJECT_TYPE", field(p, "object_type"));
            assertEquals("MONOCORE_TYPE", field(p, "processor_type"));
            List<Element> core = children(p).stream().filter(c -> c.getTagName().equals("core")).toList();
            assertEquals(1, core.size(), "a mono-core processor has one core (processor.tex L4)");
            assertTrue(cores.contains(core.get(0).getAttribute("ref")), "its core is a core unit");
            processors.add(identifier(field(p, "name")));
        }
        Map<String, String> spaceCpu = new HashMap<>();
        for (Element a : children(section(d, "address_spaces"))) {
            assertEquals("ADDRESS_SPACE_OBJECT_TYPE", field(a, "object_type"));
            String cpu = field(a, "cpu_name");
            assertTrue(processors.contains(cpu), a.getAttribute("id") + ": cpu_name " + cpu);
            natural(a, "data_memory_size");
            spaceCpu.put(identifier(field(a, "name")), cpu);
        }
        Set<String> tasks = new HashSet<>();
        for (Element t : children(section(d, "tasks"))) {
            String kind = t.getTagName();
            assertTrue(kind.equals("periodic_task") || kind.equals("sporadic_task"), kind);
            assertEquals(kind.equals("periodic_task") ? "PERIODIC_TYPE" : "SPORADIC_TYPE", field(t, "task_type"));
            assertEquals("TASK_OBJECT_TYPE", field(t, "object_type"));
            String name = identifier(field(t, "name"));
            assertLocated(t, spaceCpu);
            assertTrue(natural(t, "capacity") > 0, name + ": capacity");
            assertTrue(natural(t, "period") > 0, name + ": period (task.tex)");
            assertTrue(natural(t, "deadline") <= natural(t, "period"), name + ": deadline up to the period");
            natural(t, "start_time");
            natural(t, "jitter");
            natural(t, "blocking_time");
            long priority = natural(t, "priority");
            assertTrue(priority >= 1 && priority <= 99, name + ": priority " + priority);
            assertTrue(POLICIES.contains(field(t, "policy")), name + ": policy " + field(t, "policy"));
            assertTrue(tasks.add(name), name + ": task names are unique");
        }
        Element buffers = section(d, "buffers");
        for (Element b : buffers == null ? List.<Element>of() : children(buffers)) {
            assertEquals("BUFFER_OBJECT_TYPE", field(b, "object_type"));
            String name = identifier(field(b, "name"));
            assertLocated(b, spaceCpu);
            assertTrue(natural(b, "size") > 0, name + ": size > 0 (buffer.tex L5)");
            assertEquals("QS_PP1", field(b, "queueing_system_type"));
            Element roles = children(b).stream().filter(c -> c.getTagName().equals("roles")).findFirst().orElseThrow();
            for (Element role : children(roles)) {
                assertTrue(tasks.contains(role.getAttribute("task")), name + ": role of unknown task " + role.getAttribute("task"));
                assertTrue(Set.of("QUEUING_PRODUCER", "QUEUING_CONSUMER").contains(field(role, "the_role")));
                assertTrue(natural(role, "size") > 0, name + ": a role's size (buffer.tex L9)");
            }
        }
    }

    /** check_entity_location: the entity's address space is on the entity's processor. */
    private static void assertLocated(Element e, Map<String, String> spaceCpu) {
        String space = field(e, "address_space_name");
        assertTrue(spaceCpu.containsKey(space), e.getAttribute("id") + ": address space " + space);
        assertEquals(spaceCpu.get(space), field(e, "cpu_name"), e.getAttribute("id") + ": its address space " + space
                + " lies on its processor");
    }

    private static String identifier(String name) {
        assertTrue(IDENTIFIER.matcher(name).matches(), "'" + name + "' is not a valid identifier");
        return name;
    }

    private static String export(String xml, Cell cell) throws Exception {
        return CheddarExport.render(CochlearValidationTest.validate(xml, cell));
    }

    @Test
    void theCochlearImplantOnOneCpu() throws Exception {
        String x = export(CochlearValidationTest.cochlear(), CochlearValidationTest.HOST);
        assertCheddarFormat(x);
        assertTrue(x.contains("<name>cochlear_output</name>"), "cochlear.output is not an identifier");
    }

    @Test
    void theGoldenFileIsInCheddarsFormat() throws Exception {
        try (var golden = getClass().getResourceAsStream("cochlear.cheddar.xml")) {
            assertCheddarFormat(new String(golden.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void theCochlearImplantPartitionedOnTwoCpus() throws Exception {
        String heavy = CochlearValidationTest.cochlear().replace("wcet=\"1ms\"", "wcet=\"3ms\"")
                .replace("cost=\"1ms\"", "cost=\"3ms\"");
        String x = export(heavy, new Cell("two", 2, 64L << 20, 0));
        assertCheddarFormat(x);
        assertTrue(x.contains("<name>cochlear_cpu0</name>") && x.contains("<name>cochlear_cpu1</name>"), x);
    }

    @Test
    void twoApplicationsWithTheSameTaskNames() throws Exception {
        String second = CochlearValidationTest.cochlear().replace("<application name=\"cochlear\">",
                "<application name=\"cochlear2\">");
        SystemModel both = SystemModel.union(List.of(
                ModelBuilder.read("cochlear/manifest.xml", CochlearValidationTest.cochlear().getBytes(StandardCharsets.UTF_8)),
                ModelBuilder.read("cochlear2/manifest.xml", second.getBytes(StandardCharsets.UTF_8))));
        String x = CheddarExport.render(Validation.run(both, CochlearValidationTest.HOST));
        assertCheddarFormat(x);
        assertTrue(x.contains("<name>cochlear2_recordingTask</name>"), x);
    }

    @Test
    void theCheckRefusesWhatCheddarWould() throws Exception {
        String good = export(CochlearValidationTest.cochlear(), CochlearValidationTest.HOST);
        for (String bad : List.of(
                good.replace("<name>cochlear_output</name>", "<name>cochlear.output</name>"),
                good.replaceFirst("<policy>SCHED_FIFO</policy>", "<policy>FIFO</policy>"),
                good.replaceFirst("<period>8</period>", "<period>0</period>"),
                good.replace("<address_space_name>cochlear</address_space_name>", "<address_space_name>x</address_space_name>"))) {
            AssertionError e = org.junit.jupiter.api.Assertions.assertThrows(AssertionError.class, () -> assertCheddarFormat(bad));
            assertTrue(e.getMessage() != null);
        }
    }
}
