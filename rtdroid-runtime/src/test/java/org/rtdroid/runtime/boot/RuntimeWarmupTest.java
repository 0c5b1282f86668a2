package org.rtdroid.runtime.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.xcc.CrossContextIntent;

/** The start-up warm-up runs its releases through the channels and leaves nothing deployed. */
class RuntimeWarmupTest {
    private final RuntimeHost host = Apps.host();

    @AfterEach
    void tearDown() {
        host.shutdown();
    }

    @Test
    void warmUpRunsItsReleasesAndLeavesTheCellAsItFoundIt() {
        String line = RuntimeWarmup.run(host, 300);
        Matcher m = Pattern.compile("rtdroid-runtime: release paths warmed up \\((\\d+) releases, (\\d+) callbacks, (\\d+) "
                + "cross-context replies\\) in \\d+ ms").matcher(line);
        assertTrue(m.matches(), line);
        assertTrue(Integer.parseInt(m.group(1)) >= 300, line);
        assertTrue(Integer.parseInt(m.group(2)) > 0, "the receiver got broadcasts: " + line);
        // the echo service's path: a request delivered through the endpoint and a reply published, each time
        assertTrue(Integer.parseInt(m.group(3)) >= 300, "a receiver replied to cross-context requests: " + line);
        CrossContextIntent left = new CrossContextIntent();
        assertFalse(host.crossContext().pollOutbound(left), "no reply is left for the proxy: " + left);
        assertTrue(host.services().isEmpty(), "nothing stays deployed: " + host.services());
        assertTrue(host.apps().isEmpty());
        assertEquals(0, host.reservedBytes());
        assertTrue(host.partition().isEmpty(), host.partition().toString());
    }

    @Test
    void aWarmUpThatCannotDeploySaysWhy() throws Exception {
        host.shutdown();
        String line = RuntimeWarmup.run(host, 10);
        assertTrue(line.startsWith("rtdroid-runtime: release path warm-up skipped: "), line);
    }
}
