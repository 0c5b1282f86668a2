package org.rtdroid.rtcell.agent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WarmupTest {
    @TempDir
    Path dir;

    @Test
    void theDeployPathWarmUpVerifiesAndParsesItsOwnBundle() {
        String line = Warmup.deployPath(dir);
        // "skipped" would mean the built-in bundle no longer passes the agent's own checks.
        assertTrue(line.startsWith("rtcell: deploy path warmed up (bundle, Ed25519, manifest) in "), line);
    }
}
