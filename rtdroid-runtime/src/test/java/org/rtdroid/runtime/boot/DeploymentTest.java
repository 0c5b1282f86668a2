package org.rtdroid.runtime.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.NoSuchElementException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.component.PeriodicTask;
import org.rtdroid.runtime.component.RealtimeService;
import org.rtdroid.runtime.manifest.ManifestException;

class DeploymentTest {
    private final RuntimeHost host = Apps.host();
    private static final String MEM = "<memSizes total=\"8K\" persistent=\"4K\" release=\"4K\"/>";

    @AfterEach
    void tearDown() {
        host.shutdown();
    }

    public static final class Quiet extends RealtimeService {}

    public static final class Thrower extends RealtimeService {
        @Override
        public void onCreate() {
            throw new IllegalStateException("sensor missing");
        }
    }

    public static final class ForgetsTask extends RealtimeService {}

    public static final class NotAService {}

    public static final class NoDefaultConstructor extends RealtimeService {
        public NoDefaultConstructor(int x) {}
    }

    public static final class Ticker extends RealtimeService {
        @Override
        public void onStartCommand() {
            registerTask("t", new PeriodicTask() {
                @Override
                public void onRelease() {}
            });
        }
    }

    private static DeploymentException refused(RuntimeHost h, String name, String body) {
        return assertThrows(DeploymentException.class, () -> Apps.deploy(h, name, body));
    }

    @Test
    void duplicateApplicationName() throws Exception {
        Apps.deploy(host, "one", Apps.service(Quiet.class, 50, MEM, ""));
        DeploymentException e = refused(host, "one", Apps.service(Quiet.class, 50, MEM, ""));
        assertEquals(DeploymentException.Reason.DUPLICATE, e.reason());
        assertEquals(7, e.reason().code());
    }

    @Test
    void duplicateCrossContextChannelAcrossApplications() throws Exception {
        String xcc = "<channel name=\"shared\" type=\"cross-context\" direction=\"out\"><data size=\"8B\"/></channel>";
        Apps.deploy(host, "a", Apps.service(Quiet.class, 50, MEM, Apps.filter("publisher", "shared")) + xcc);
        DeploymentException e = refused(host, "b", Apps.service(Quiet.class, 50, MEM, Apps.filter("publisher", "shared")) + xcc);
        assertEquals(DeploymentException.Reason.DUPLICATE, e.reason());
        assertTrue(e.getMessage().contains("'shared'"), e.getMessage());
        assertEquals(1, host.apps().size());
    }

    @Test
    void overBudgetMemory() {
        RuntimeHost small = RuntimeHost.start(CellConfig.unprivileged(6 * 1024));
        try {
            DeploymentException e = refused(small, "big", Apps.service(Quiet.class, 50, MEM, ""));
            assertEquals(DeploymentException.Reason.OVER_BUDGET, e.reason());
            assertTrue(e.getMessage().contains("8192 B"), e.getMessage());
        } finally {
            small.shutdown();
        }
    }

    @Test
    void overBudgetUtilizationTogetherWithWhatRuns() throws Exception {
        int cpus = host.config().cpuCount();
        String half = "<service name=\"" + Ticker.class.getName() + "\" priority=\"50\">"
                + "<memSizes total=\"12K\" persistent=\"4K\" release=\"4K\"/><periodic-task name=\"t\" wcet=\"500ms\">"
                + "<memSizes release=\"4K\"/><release periodic=\"1s\"/></periodic-task></service>";
        for (int i = 0; i < 2 * cpus; i++) {
            Apps.deploy(host, "half" + i, half);
        }
        DeploymentException e = refused(host, "straw", half);
        assertEquals(DeploymentException.Reason.OVER_BUDGET, e.reason());
        assertTrue(e.getMessage().contains("utilization"), e.getMessage());
    }

    @Test
    void loadFailures() {
        assertEquals(DeploymentException.Reason.LOAD_FAILED,
                refused(host, "x", "<service name=\"org.nowhere.Missing\" priority=\"50\">" + MEM + "</service>").reason());
        DeploymentException wrongType = refused(host, "y", Apps.service(NotAService.class, 50, MEM, ""));
        assertEquals(DeploymentException.Reason.LOAD_FAILED, wrongType.reason());
        assertTrue(wrongType.getMessage().contains("does not extend"), wrongType.getMessage());
        assertEquals(DeploymentException.Reason.LOAD_FAILED,
                refused(host, "z", Apps.service(NoDefaultConstructor.class, 50, MEM, "")).reason());
    }

    @Test
    void startFailures() {
        DeploymentException e = refused(host, "t", Apps.service(Thrower.class, 50, MEM, ""));
        assertEquals(DeploymentException.Reason.START_FAILED, e.reason());
        assertTrue(e.getMessage().contains("sensor missing"), e.getMessage());
        DeploymentException forgot = refused(host, "f", "<service name=\"" + ForgetsTask.class.getName()
                + "\" priority=\"50\"><memSizes total=\"12K\" persistent=\"4K\" release=\"4K\"/>"
                + Apps.task("never", "10ms", "4K") + "</service>");
        assertEquals(DeploymentException.Reason.START_FAILED, forgot.reason());
        assertTrue(forgot.getMessage().contains("not registered"), forgot.getMessage());
        assertTrue(host.apps().isEmpty());
    }

    @Test
    void priorityOutsideTheCellRangeIsAManifestError() {
        RuntimeHost narrow = RuntimeHost.start(new CellConfig(null, 1 << 20, 10, 60, false, false, 64));
        try {
            ManifestException e = assertThrows(ManifestException.class,
                    () -> Apps.deploy(narrow, "hot", Apps.service(Quiet.class, 80, MEM, "")));
            assertEquals("service", e.element());
            assertTrue(e.problem().contains("10..60"), e.getMessage());
        } finally {
            narrow.shutdown();
        }
    }

    @Test
    void undeployUnknownApplication() {
        assertThrows(NoSuchElementException.class, () -> host.undeploy("ghost"));
    }

    @Test
    void budgetIsReturnedOnUndeploy() throws Exception {
        Apps.deploy(host, "r", Apps.service(Quiet.class, 50, MEM, ""));
        assertEquals(8192, host.reservedBytes());
        host.undeploy("r");
        assertEquals(0, host.reservedBytes());
        Apps.deploy(host, "r", Apps.service(Quiet.class, 50, MEM, ""));
    }
}
