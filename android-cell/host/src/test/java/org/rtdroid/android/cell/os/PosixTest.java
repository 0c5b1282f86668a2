package org.rtdroid.android.cell.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** A pre-started JVM becomes an app's uid with every one of its threads (what zygote's specialisation needs). */
class PosixTest {
    @Test
    void everyThreadOfTheJvmBecomesTheAppsUid() throws Exception {
        assumeTrue((Integer) Files.getAttribute(Paths.get("/proc/self"), "unix:uid") == 0,
                "becoming another uid needs root, as the project's machines and CI run");
        Path secret = Files.createTempFile("root-only", ".txt");
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        try {
            String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
            Process p = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                    System.getProperty("java.class.path"), BecomeAppMain.class.getName(), "10042", secret.toString())
                    .redirectErrorStream(true).start();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
            String out = new String(p.getInputStream().readAllBytes());
            assertEquals(0, p.exitValue(), out);
            assertTrue(out.contains("becomeApp true"), out);
            List<String> tasks = out.lines().filter(l -> l.startsWith("task ")).toList();
            assertTrue(tasks.size() >= 3 * 10, "every thread's Uid, Gid and Groups: " + out); // the JVM has many
            for (String l : tasks) {
                if (l.contains(" Uid:")) {
                    assertTrue(l.endsWith("Uid: 10042 10042 10042 10042"), l);
                } else if (l.contains(" Gid:")) {
                    assertTrue(l.endsWith("Gid: 10042 10042 10042 10042"), l);
                } else {
                    assertTrue(l.endsWith("Groups:"), l);
                }
            }
            assertTrue(out.contains("root-only file: denied"), out);
        } finally {
            Files.deleteIfExists(secret);
        }
    }
}
