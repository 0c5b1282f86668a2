package org.rtdroid.runtime.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.component.ComponentRuntime;
import org.rtdroid.runtime.component.ComponentState;
import org.rtdroid.runtime.component.PeriodicTask;
import org.rtdroid.runtime.component.RealtimeService;
import org.rtdroid.runtime.memory.HeapBoundExceededError;
import org.rtdroid.runtime.memory.ScopeAccessError;
import org.rtdroid.runtime.memory.ScopeKind;
import org.rtdroid.runtime.memory.ScopeOverflowError;

class ScopeBoundsTest {
    private final RuntimeHost host = Apps.host();

    @AfterEach
    void tearDown() {
        host.shutdown();
    }

    /** Overflows its task's 4 KiB release scope when told to. */
    public static final class Overflower extends RealtimeService {
        static volatile boolean overflow;
        static volatile long releaseScopeUsedAtStart = -1;

        @Override
        public void onStartCommand() {
            registerTask("boom", new PeriodicTask() {
                @Override
                public void onRelease() {
                    releaseScopeUsedAtStart = releaseScope().usedBytes();
                    releaseScope().allocate(1024); // fine every time: the scope is cleared after each release
                    if (overflow) {
                        releaseScope().allocate(6 * 1024);
                    }
                }
            });
        }
    }

    public static final class Bystander extends RealtimeService {
        static volatile long releases;

        @Override
        public void onStartCommand() {
            registerTask("steady", new PeriodicTask() {
                @Override
                public void onRelease() {
                    releases++;
                }
            });
        }
    }

    @Test
    void releaseScopeOverflowStopsOnlyTheFailingComponent() throws Exception {
        Overflower.overflow = false;
        String mem = "<memSizes total=\"12K\" persistent=\"4K\" release=\"4K\"/>";
        DeployedApp app = Apps.deploy(host, "bounds",
                Apps.service(Overflower.class, 50, mem, Apps.task("boom", "1ms", "4K"))
                + Apps.service(Bystander.class, 50, mem, Apps.task("steady", "1ms", "4K")));
        ComponentRuntime over = app.componentRuntime("Overflower");
        Apps.await("some releases", 5_000, () -> over.tasks().get(0).releases() > 20);
        assertEquals(0, Overflower.releaseScopeUsedAtStart, "every release starts with an empty release scope");
        Overflower.overflow = true;
        Apps.await("Overflower failed", 5_000, () -> over.state() == ComponentState.FAILED);
        ScopeOverflowError e = assertInstanceOf(ScopeOverflowError.class, over.lastFailure());
        assertEquals("Overflower/boom", e.componentName());
        assertEquals(ScopeKind.RELEASE, e.scopeKind());
        assertEquals(4096, e.capacityBytes());
        assertEquals(1024 + 6 * 1024 - 4096, e.overflowBytes());
        assertTrue(e.getMessage().contains("overflowed by 3072 B"), e.getMessage());
        long before = Bystander.releases;
        Apps.await("the other component keeps running", 10_000, () -> Bystander.releases > before + 5);
        assertTrue(host.services().stream().anyMatch(s -> s.name().equals("bounds/Overflower/boom")
                && s.state().equals("FAILED") && s.failures() == 1));
    }

    public static final class GreedyCreator extends RealtimeService {
        @Override
        public void onCreate() {
            persistentScope().allocate(8 * 1024);
        }
    }

    @Test
    void persistentScopeOverflowInOnCreateFailsTheDeployment() throws Exception {
        DeploymentException e = assertThrows(DeploymentException.class, () -> Apps.deploy(host, "greedy",
                Apps.service(GreedyCreator.class, 50, "<memSizes total=\"8K\" persistent=\"4K\" release=\"4K\"/>", "")));
        assertEquals(DeploymentException.Reason.START_FAILED, e.reason());
        ScopeOverflowError cause = assertInstanceOf(ScopeOverflowError.class, e.getCause());
        assertEquals(ScopeKind.PERSISTENT, cause.scopeKind());
        assertEquals("GreedyCreator", cause.componentName());
        assertTrue(e.getMessage().contains("persistent scope of 4096 B overflowed by 4096 B"), e.getMessage());
        assertTrue(host.apps().isEmpty());
    }

    /** Allocates 16 KiB of Java heap per release against a 4 KiB release bound; policy continue. */
    public static final class HeapHog extends RealtimeService {
        static volatile Object sink;

        @Override
        public void onStartCommand() {
            registerTask("hog", new PeriodicTask() {
                @Override
                public void onRelease() {
                    sink = new byte[16 * 1024];
                }
            });
        }
    }

    @Test
    void heapAllocationInAReleaseIsCheckedAgainstTheReleaseBound() throws Exception {
        DeployedApp app = Apps.deploy(host, "hog",
                "<service name=\"" + HeapHog.class.getName() + "\" priority=\"50\" on-failure=\"continue\">"
                + "<memSizes total=\"12K\" persistent=\"4K\" release=\"4K\"/>" + Apps.task("hog", "1ms", "4K")
                + "</service>");
        ComponentRuntime c = app.componentRuntime("HeapHog");
        Apps.await("heap violations", 5_000, () -> c.tasks().get(0).heapViolations() >= 3);
        HeapBoundExceededError e = assertInstanceOf(HeapBoundExceededError.class, c.lastFailure());
        assertEquals("HeapHog/hog", e.componentName());
        assertEquals(4096, e.boundBytes());
        assertTrue(e.allocatedBytes() >= 16 * 1024, "measured " + e.allocatedBytes());
        assertEquals(ComponentState.RUNNING, c.state(), "policy 'continue' keeps it running");
        assertTrue(c.tasks().get(0).releases() > ComponentRuntime.HEAP_WARMUP_CALLBACKS);
    }

    /** Builds a table in its immortal scope at start-up and reads it in every release. */
    public static final class TableKeeper extends RealtimeService {
        static volatile long table = -1;
        static volatile long sum;
        static volatile Throwable lateAllocation;

        @Override
        public void onCreate() {
            table = immortalScope().allocate(8 * 64);
            for (int i = 0; i < 64; i++) {
                immortalScope().putLong(table + 8L * i, i);
            }
        }

        @Override
        public void onStartCommand() {
            registerTask("read", new PeriodicTask() {
                @Override
                public void onRelease() {
                    long s = 0;
                    for (int i = 0; i < 64; i++) {
                        s += immortalScope().getLong(table + 8L * i);
                    }
                    sum = s;
                    if (lateAllocation == null) {
                        try {
                            immortalScope().allocate(8);
                        } catch (Throwable t) {
                            lateAllocation = t;
                        }
                    }
                }
            });
        }
    }

    @Test
    void immortalScopeIsFilledAtStartUpAndKeptAcrossReleases() throws Exception {
        DeployedApp app = Apps.deploy(host, "keeper", Apps.service(TableKeeper.class, 50,
                "<memSizes total=\"16K\" persistent=\"4K\" release=\"4K\" immortal=\"4K\"/>",
                Apps.task("read", "1ms", "4K")));
        ComponentRuntime c = app.componentRuntime("TableKeeper");
        Apps.await("releases", 5_000, () -> c.tasks().get(0).releases() > 10);
        assertEquals(63 * 64 / 2, TableKeeper.sum, "the table built in onCreate is intact");
        assertTrue(c.immortalScope().sealed());
        ScopeAccessError e = assertInstanceOf(ScopeAccessError.class, TableKeeper.lateAllocation);
        assertEquals(ScopeAccessError.Reason.SEALED, e.reason());
        assertEquals(ComponentState.RUNNING, c.state());
    }

    @Test
    void aManifestWhoseTotalLeavesOutTheImmortalAreaIsRefused() {
        Exception e = assertThrows(Exception.class, () -> Apps.manifest("bad", Apps.service(TableKeeper.class, 50,
                "<memSizes total=\"8K\" persistent=\"4K\" release=\"4K\" immortal=\"4K\"/>", "")));
        assertTrue(e.getMessage().contains("+ immortal 4096"), e.getMessage());
    }
}
