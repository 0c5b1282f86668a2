package org.rtdroid.android.cell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad command lines are refused before the framework starts: exit 2, the option and the rule. */
class MainArgumentsTest {
    @TempDir
    Path tmp;

    private static String[] run(String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-cp");
        cmd.add(CellProcess.runtimeClasspath());
        cmd.add("org.rtdroid.android.cell.Main");
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return new String[] {Integer.toString(p.exitValue()), out};
    }

    @Test
    void badArgumentsAreNamed() throws Exception {
        String[] r = run("--control-port", "7600");
        assertEquals("2", r[0], r[1]);
        assertTrue(r[1].contains("--region PATH is required"), r[1]);
        r = run("--region", "/dev/shm/x", "--control-port", "70000");
        assertEquals("2", r[0], r[1]);
        assertTrue(r[1].contains("--control-port 70000 must be 0..65535"), r[1]);
        r = run("--region", "/dev/shm/x", "--control-port", "0", "--sdk", "36");
        assertEquals("2", r[0], r[1]);
        assertTrue(r[1].contains("--sdk 36 is not available"), r[1]);
        r = run("--region", "/no/such/dir/region", "--control-port", "0");
        assertEquals("2", r[0], r[1]);
        assertTrue(r[1].contains("directory /no/such/dir does not exist"), r[1]);
        r = run("--region", "/dev/shm/x", "--control-port", "0", "--app-process", "no-package!");
        assertEquals("2", r[0], r[1]);
        assertTrue(r[1].contains("--app-process 'no-package!' is not a package name"), r[1]);
        r = run("--region", "/dev/shm/x", "--control-port", "0", "--bogus", "1");
        assertEquals("2", r[0], r[1]);
        assertTrue(r[1].contains("unknown argument '--bogus'"), r[1]);
        r = run("--region", "/dev/shm/x", "--control-port", "0", "--peer-timeout-ms", "50");
        assertEquals("2", r[0], r[1]);
        assertTrue(r[1].contains("--peer-timeout-ms 50 must be 100..600000"), r[1]);
        r = run("--region", "/dev/shm/x", "--control-port", "0", "--realtime-threads", "maybe");
        assertEquals("2", r[0], r[1]);
        assertTrue(r[1].contains("--realtime-threads must be on or off, got 'maybe'"), r[1]);
        r = run("--region", "/dev/shm/x", "--control-port", "0", "--platform-cert", "/no/such/cert.pem");
        assertEquals("2", r[0], r[1]);
        assertTrue(r[1].contains("--platform-cert /no/such/cert.pem: cannot read it"), r[1]);
        Path notACert = Files.writeString(tmp.resolve("not-a-cert.pem"), "hello");
        r = run("--region", "/dev/shm/x", "--control-port", "0", "--platform-cert", notACert.toString());
        assertEquals("2", r[0], r[1]);
        assertTrue(r[1].contains("--platform-cert " + notACert + " is not an X.509 certificate"), r[1]);
    }
}
