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

    /** A valid command line ({@code --region /dev/shm/x --control-port 0}) followed by {@code more}. */
    private static String[] valid(String... more) {
        List<String> args = new ArrayList<>(List.of("--region", "/dev/shm/x", "--control-port", "0"));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    /** {@code args} are refused: exit 2, and the output says {@code says}. */
    private static void assertRefused(String says, String... args) throws Exception {
        String[] r = run(args);
        assertEquals("2", r[0], r[1]);
        assertTrue(r[1].contains(says), r[1]);
    }

    @Test
    void badArgumentsAreNamed() throws Exception {
        assertRefused("--region PATH is required", "--control-port", "7600");
        assertRefused("--control-port 70000 must be 0..65535", "--region", "/dev/shm/x", "--control-port", "70000");
        assertRefused("--sdk 36 is not available", valid("--sdk", "36"));
        assertRefused("directory /no/such/dir does not exist", "--region", "/no/such/dir/region", "--control-port", "0");
        assertRefused("--app-process 'no-package!' is not a package name", valid("--app-process", "no-package!"));
        assertRefused("unknown argument '--bogus'", valid("--bogus", "1"));
        assertRefused("--peer-timeout-ms 50 must be 100..600000", valid("--peer-timeout-ms", "50"));
        assertRefused("--realtime-threads must be on or off, got 'maybe'", valid("--realtime-threads", "maybe"));
        assertRefused("--platform-cert /no/such/cert.pem: cannot read it", valid("--platform-cert", "/no/such/cert.pem"));
        Path notACert = Files.writeString(tmp.resolve("not-a-cert.pem"), "hello");
        assertRefused("--platform-cert " + notACert + " is not an X.509 certificate", valid("--platform-cert", notACert.toString()));
    }
}
