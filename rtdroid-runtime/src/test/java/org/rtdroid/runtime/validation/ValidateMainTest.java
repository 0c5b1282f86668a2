package org.rtdroid.runtime.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command's contract: exit 0 holds, 1 fails with reasons, 2 malformed; report, JSON, Cheddar export. */
class ValidateMainTest {
    @TempDir
    Path dir;

    record Run(int code, String out, String err) {}

    static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = ValidateMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void cochlearAndEchoHoldTogether() {
        Run r = run("--board", "host", "examples/src/main/manifests/cochlear", "examples/src/main/manifests/echo/manifest.xml");
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("Verdict: HOLDS: 5 task(s) schedulable"), r.out());
        assertTrue(r.out().contains("EchoReceiver"), r.out());
    }

    @Test
    void failingSetExitsOneWithItsReasons() throws Exception {
        Path m = dir.resolve("manifest.xml");
        Files.writeString(m, CochlearValidationTest.cochlear().replace("wcet=\"1ms\"", "wcet=\"3ms\"").replace("cost=\"1ms\"", "cost=\"3ms\""));
        Run r = run(m.toString());
        assertEquals(1, r.code());
        assertTrue(r.out().contains("Verdict: FAILS (1 reason(s)):\n  UNSCHEDULABLE: OutputReceiver WCRT 9 ms > deadline 8 ms"), r.out());
    }

    @Test
    void whatTheDeployerRefusesIsAnErrorAndEveryErrorIsReported() throws Exception {
        // issue 38 defect 3: no versionCode passed validation ("HOLDS") while the agent refused it
        Path noVersion = dir.resolve("no-version.xml");
        Files.writeString(noVersion, CochlearValidationTest.cochlear().replaceFirst("<manifest versionCode=\"[0-9]+\"", "<manifest"));
        Path badPriority = dir.resolve("bad-priority.xml");
        Files.writeString(badPriority, CochlearValidationTest.cochlear().replace("priority=\"89\">", "priority=\"189\">"));
        Run r = run(noVersion.toString(), badPriority.toString());
        assertEquals(2, r.code(), r.out() + r.err());
        assertEquals("", r.out());
        assertEquals("validate: " + noVersion + ": <manifest>: missing attribute 'versionCode' (a positive integer, raised"
                + " with every release; the cell refuses older versions)\n"
                + "validate: " + badPriority + ":19:84: <service>: priority 189 is outside 1..99\n", r.err());
    }

    @Test
    void malformedManifestExitsTwoNamingFileLineColumnAndElement() throws Exception {
        Path m = dir.resolve("manifest.xml");
        Files.writeString(m, CochlearValidationTest.cochlear().replace("priority=\"89\">", "priority=\"189\">"));
        Run r = run(m.toString());
        assertEquals(2, r.code());
        assertEquals("validate: " + m + ":19:84: <service>: priority 189 is outside 1..99\n", r.err());
        assertEquals("", r.out());
        Run missing = run(dir.resolve("nothing.xml").toString());
        assertEquals(2, missing.code());
        assertTrue(missing.err().contains("nothing.xml: cannot read: no such file"), missing.err());
        assertEquals(2, run("--cpus", "0", m.toString()).code());
        assertEquals(2, run().code());
    }

    @Test
    void jsonCarriesTheVerdictAndEveryTask() {
        Run r = run("--json", "examples/src/main/manifests/cochlear");
        assertEquals(0, r.code());
        String j = r.out();
        assertTrue(j.startsWith("{\"holds\":true,\"reasons\":[],"), j);
        assertTrue(j.contains("\"name\":\"OutputReceiver\",\"key\":\"cochlear/OutputReceiver\",\"app\":\"cochlear\",\"kind\":\"sporadic\",\"priority\":88,"
                + "\"period_ns\":8000000,\"cost_ns\":1000000,\"jitter_ns\":0,\"blocking_ns\":0,\"wcrt_ns\":3000000"), j);
        assertTrue(j.contains("\"utilization\":0.381250"), j);  // with processingTask's overrun handler
    }

    @Test
    void cheddarExportMatchesTheGoldenFile() throws Exception {
        Path out = dir.resolve("cochlear.xml");
        assertEquals(0, run("--cheddar", out.toString(), "examples/src/main/manifests/cochlear").code());
        try (InputStream golden = getClass().getResourceAsStream("cochlear.cheddar.xml")) {
            assertEquals(new String(golden.readAllBytes(), StandardCharsets.UTF_8), Files.readString(out));
        }
    }
}
