package org.rtdroid.runtime.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.component.PeriodicTask;
import org.rtdroid.runtime.component.RealtimeService;

/** A failed component says why: class, message, task and release, the first frames of its stack. */
class FailureCauseTest {
    private final RuntimeHost host = Apps.host();

    @AfterEach
    void tearDown() {
        host.shutdown();
    }

    /** Its task throws at release {@link #FAIL_AT} (counted by the task itself) and, under continue, again at 2 x. */
    public static final class Sensor extends RealtimeService {
        static final int FAIL_AT = 7;
        static volatile long calls;

        @Override
        public void onStartCommand() {
            calls = 0;
            registerTask("sample", new PeriodicTask() {
                @Override
                public void onRelease() {
                    long n = ++calls;
                    if (n == FAIL_AT) {
                        readSensor("electrode 3 open");
                    }
                    if (n == 2 * FAIL_AT) {
                        throw new ArithmeticException("second failure " + n);
                    }
                }
            });
        }

        private static void readSensor(String why) {
            throw new IllegalStateException("sensor gone: " + why);
        }
    }

    public static final class Steady extends RealtimeService {
        @Override
        public void onStartCommand() {
            registerTask("tick", new PeriodicTask() {
                @Override
                public void onRelease() {}
            });
        }
    }

    private ServiceStatus row(String name) {
        return host.services().stream().filter(s -> s.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + name + " in " + host.services()));
    }

    @Test
    void aFailedComponentCarriesItsCauseOnItsRowAndItsTasksRows() throws Exception {
        String mem = "<memSizes total=\"12K\" persistent=\"4K\" release=\"4K\"/>";
        Apps.deploy(host, "implant", Apps.service(Sensor.class, 50, mem, Apps.task("sample", "1ms", "4K"))
                + Apps.service(Steady.class, 50, mem, Apps.task("tick", "1ms", "4K")));
        Apps.await("Sensor failed", 5_000, () -> row("implant/Sensor").state().equals("FAILED"));

        ServiceStatus component = row("implant/Sensor");
        FailureCause cause = component.cause();
        assertEquals("java.lang.IllegalStateException", cause.exceptionClass());
        assertEquals("sensor gone: electrode 3 open", cause.message());
        assertEquals("sample", cause.task());
        assertEquals(Sensor.FAIL_AT, cause.release(), "the release at which it threw, counted from 1");
        List<String> frames = cause.frames();
        assertTrue(frames.size() >= 2 && frames.size() <= FailureCause.MAX_FRAMES, frames.toString());
        assertTrue(frames.get(0).contains("FailureCauseTest$Sensor.readSensor(FailureCauseTest.java:"), frames.get(0));
        assertTrue(frames.get(1).contains(".onRelease(FailureCauseTest.java:"), frames.get(1));
        assertEquals(cause, row("implant/Sensor/sample").cause(), "the task row says why too");
        assertTrue(cause.summary().startsWith("java.lang.IllegalStateException: sensor gone: electrode 3 open "
                + "(task sample, release 7) at "), cause.summary());

        assertNull(row("implant/Steady").cause(), "a component that never failed has no cause");
        assertNull(row("implant/Steady/tick").cause());
        assertEquals("RUNNING", row("implant/Steady").state());
    }

    @Test
    void underContinueTheLatestFailureIsShownAndTheComponentKeepsRunning() throws Exception {
        Apps.deploy(host, "lenient", "<service name=\"" + Sensor.class.getName() + "\" priority=\"50\" on-failure=\"continue\">"
                + "<memSizes total=\"12K\" persistent=\"4K\" release=\"4K\"/>" + Apps.task("sample", "1ms", "4K") + "</service>");
        Apps.await("two failures", 5_000, () -> row("lenient/Sensor").failures() == 2);
        ServiceStatus component = row("lenient/Sensor");
        assertEquals("RUNNING", component.state());
        assertEquals("java.lang.ArithmeticException", component.cause().exceptionClass());
        assertEquals("second failure 14", component.cause().message());
        assertEquals(2 * Sensor.FAIL_AT, component.cause().release());
    }

    @Test
    void aCauseWithoutMessageOrStackStillReads() {
        Throwable bare = new IllegalStateException();
        bare.setStackTrace(new StackTraceElement[0]);
        FailureCause c = FailureCause.of(bare, null, 0);
        assertEquals("", c.message());
        assertEquals(List.of(), c.frames());
        assertEquals("java.lang.IllegalStateException (start-up)", c.summary());
        assertEquals("java.lang.Error: x (callback 3)", FailureCause.of(noStack(new Error("x")), null, 3).summary());
    }

    private static Throwable noStack(Throwable t) {
        t.setStackTrace(new StackTraceElement[0]);
        return t;
    }
}
