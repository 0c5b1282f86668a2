package org.rtdroid.rtcell.agent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class WarmupTest {
    @Test
    void theDeployPathWarmUpVerifiesAndParsesItsOwnBundle() {
        String line = Warmup.deployPath();
        // "skipped" would mean the built-in bundle no longer passes the agent's own checks.
        assertTrue(line.startsWith("rtcell: deploy path warmed up (bundle, Ed25519, manifest) in "), line);
    }
}
