package org.rtdroid.android.cell;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.stream.Collectors;

import org.junit.runner.JUnitCore;
import org.junit.runner.Request;
import org.junit.runner.Result;

/**
 * Runs a JUnit 4 class in the framework sandbox (Robolectric, offline, the same instrumented
 * framework jar the cell runs) from a JUnit 5 test, and fails with every failure's trace.
 */
final class SandboxRun {
    private SandboxRun() {
    }

    static void assertAllPass(Class<?> sandbox, int expectedRuns) {
        System.setProperty("robolectric.offline", "true");
        System.setProperty("robolectric.dependency.dir", System.getProperty("cell.dist") + "/robolectric-deps");
        System.setProperty("robolectric.logging.enabled", "false");
        Result r = new JUnitCore().run(Request.aClass(sandbox));
        String failures = r.getFailures().stream().map(f -> f.getTestHeader() + ": " + f.getTrace())
                .collect(Collectors.joining("\n"));
        assertEquals(0, r.getFailureCount(), failures);
        assertEquals(expectedRuns, r.getRunCount());
    }
}
