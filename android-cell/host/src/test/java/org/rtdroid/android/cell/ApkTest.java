package org.rtdroid.android.cell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * `make apk`: builds the real signed APKs with android-cell/apk/build-apk.sh (aapt2, D8,
 * zipalign, apksigner) and checks them with verify-apk.sh (apksigner verify -v, zipalign -c,
 * aapt2 dump badging, dexdump). Fails if a tool is missing: they are the board set-up's packages.
 */
class ApkTest {
    @Test
    void signedApksBuildAndVerify() throws Exception {
        Path repo = RealRtCellIT.repo();
        Path script = repo.resolve("android-cell/apk/build-apk.sh");
        Process p = new ProcessBuilder("bash", script.toString(), "--verify").redirectErrorStream(true)
                .directory(repo.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(10, TimeUnit.MINUTES), "build-apk.sh timed out");
        System.out.println(out.lines().filter(l -> l.startsWith("  ") || l.startsWith("==") || l.startsWith("     "))
                .reduce("", (a, b) -> a + "[apk] " + b + "\n"));
        assertEquals(0, p.exitValue(), out);
        assertFalse(out.contains("FAIL"), out);
        assertTrue(out.contains("launchable-activity: name='org.rtdroid.cochlear.ui.ConfigurationActivity'"), out);
        assertTrue(out.contains("package: name='org.rtdroid.proxy'"), out);
        assertTrue(Files.size(repo.resolve("build/apk/cochlear-configuration-ui.apk")) > 4096);
        assertTrue(Files.size(repo.resolve("build/apk/rtdroid-proxy.apk")) > 4096);
    }
}
