package org.rtdroid.android.cell;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.runner.JUnitCore;
import org.junit.runner.Request;
import org.junit.runner.Result;

/**
 * The app library LocalBroadcastManager on the real framework: runs {@link LocalBroadcastSandbox} in
 * the framework sandbox (Robolectric, offline, the same instrumented framework jar the cell runs).
 */
class LocalBroadcastTest {
    @Test
    void localBroadcastsAreDeliveredBySenderPriorityOnTheMainLooper() {
        System.setProperty("robolectric.offline", "true");
        System.setProperty("robolectric.dependency.dir", System.getProperty("cell.dist") + "/robolectric-deps");
        System.setProperty("robolectric.logging.enabled", "false");
        Result r = new JUnitCore().run(Request.aClass(LocalBroadcastSandbox.class));
        String failures = r.getFailures().stream().map(f -> f.getTestHeader() + ": " + f.getTrace())
                .collect(Collectors.joining("\n"));
        assertEquals(0, r.getFailureCount(), failures);
        assertEquals(5, r.getRunCount());
    }
}
