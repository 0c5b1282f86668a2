package org.rtdroid.runtime.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Textbook task sets with published answers; times in plain units (1 ns here, the analysis is unit-free). */
class ResponseTimeAnalysisTest {
    static Task task(String name, int priority, long period, long cost) {
        return task(name, priority, period, cost, period, 0);
    }

    static Task task(String name, int priority, long period, long cost, long deadline, long jitter) {
        return new Task("test", name, Task.Kind.PERIODIC, priority, period, cost, deadline, jitter, 0, "test.xml:1");
    }

    static long[] wcrts(List<Task> tasks, Map<String, Long> blocking) {
        return ResponseTimeAnalysis.analyse(tasks, blocking).stream().mapToLong(ResponseTimeAnalysis.Result::wcrtNanos).toArray();
    }

    @Test
    void burnsAndWellingsTaskSetIsSchedulableAboveTheLiuLaylandBound() {
        // Burns & Wellings, Real-Time Systems and Programming Languages, response-time example:
        // a (T 7, C 3), b (T 12, C 3), c (T 20, C 5): R = 3, 6, 20; U = 0.929 > 0.780.
        List<Task> set = List.of(task("a", 3, 7, 3), task("b", 2, 12, 3), task("c", 1, 20, 5));
        assertEquals(List.of(3L, 6L, 20L), List.of(wcrts(set, Map.of())[0], wcrts(set, Map.of())[1], wcrts(set, Map.of())[2]));
        assertTrue(ResponseTimeAnalysis.analyse(set, Map.of()).stream().allMatch(ResponseTimeAnalysis.Result::schedulable));
        assertTrue(ResponseTimeAnalysis.utilization(set) > ResponseTimeAnalysis.liuLaylandBound(3));
    }

    @Test
    void buttazzoExampleMeetsItsDeadlineExactly() {
        // Buttazzo, Hard Real-Time Computing Systems, response-time analysis example:
        // τ1 (C 1, T 4), τ2 (C 2, T 6), τ3 (C 3, T 10): R = 1, 3, 10.
        List<Task> set = List.of(task("t1", 3, 4, 1), task("t2", 2, 6, 2), task("t3", 1, 10, 3));
        long[] r = wcrts(set, Map.of());
        assertEquals(1, r[0]);
        assertEquals(3, r[1]);
        assertEquals(10, r[2]);
        assertTrue(ResponseTimeAnalysis.analyse(set, Map.of()).get(2).schedulable(), "R3 = D3 = 10 meets the deadline");
        assertEquals(0, ResponseTimeAnalysis.analyse(set, Map.of()).get(2).slackNanos());
    }

    @Test
    void liuLaylandBounds() {
        assertEquals(1.0, ResponseTimeAnalysis.liuLaylandBound(1), 1e-12);
        assertEquals(2 * (Math.sqrt(2) - 1), ResponseTimeAnalysis.liuLaylandBound(2), 1e-12);
        assertEquals(0.7798, ResponseTimeAnalysis.liuLaylandBound(3), 1e-4);
        assertEquals(Math.log(2), ResponseTimeAnalysis.liuLaylandBound(100_000), 1e-5);
    }

    @Test
    void harmonicSetAtFullUtilizationIsSchedulableOneUnitMoreIsNot() {
        // U = 1 exactly, above every Liu-Layland bound: harmonic periods make it schedulable.
        List<Task> full = List.of(task("hi", 2, 4, 2), task("lo", 1, 8, 4));
        assertEquals(8, wcrts(full, Map.of())[1]);
        assertTrue(ResponseTimeAnalysis.analyse(full, Map.of()).get(1).schedulable());
        List<Task> over = List.of(task("hi", 2, 4, 2), task("lo", 1, 8, 5));
        ResponseTimeAnalysis.Result lo = ResponseTimeAnalysis.analyse(over, Map.of()).get(1);
        assertFalse(lo.schedulable());
        assertTrue(lo.wcrtNanos() > 8);
    }

    @Test
    void hyperbolicBoundAcceptsWhatLiuLaylandCannot() {
        // U = 1/2 + 1/3 = 0.833 > 0.828 (n = 2), but (1.5)(1.333) = 2: the hyperbolic bound holds.
        List<Task> set = List.of(task("a", 2, 2, 1), task("b", 1, 3, 1));
        assertTrue(ResponseTimeAnalysis.utilization(set) > ResponseTimeAnalysis.liuLaylandBound(2));
        assertEquals(2.0, ResponseTimeAnalysis.hyperbolicProduct(set), 1e-12);
        assertTrue(ResponseTimeAnalysis.boundsApply(set, Map.of()));
        assertEquals(2, wcrts(set, Map.of())[1]);
    }

    @Test
    void boundsDoNotApplyWithJitterBlockingShortDeadlinesOrNonRateMonotonicPriorities() {
        assertFalse(ResponseTimeAnalysis.boundsApply(List.of(task("a", 1, 10, 1, 5, 0)), Map.of()));
        assertFalse(ResponseTimeAnalysis.boundsApply(List.of(task("a", 1, 10, 1, 10, 2)), Map.of()));
        assertFalse(ResponseTimeAnalysis.boundsApply(List.of(task("a", 1, 10, 1)), Map.of("test/a", 1L)));
        assertFalse(ResponseTimeAnalysis.boundsApply(List.of(task("a", 1, 5, 1), task("b", 2, 10, 1)), Map.of()));
    }

    @Test
    void releaseJitterOfAHigherPriorityTaskAddsAnInterferingRelease() {
        // hi (T 10, C 3, J 4): R = 3 + 4 = 7. lo (T 20, C 6): without jitter 9, with it
        // w = 6 + ⌈(w + 4)/10⌉·3 = 12.
        List<Task> noJitter = List.of(task("hi", 2, 10, 3), task("lo", 1, 20, 6));
        assertEquals(9, wcrts(noJitter, Map.of())[1]);
        List<Task> jitter = List.of(task("hi", 2, 10, 3, 10, 4), task("lo", 1, 20, 6));
        long[] r = wcrts(jitter, Map.of());
        assertEquals(7, r[0]);
        assertEquals(12, r[1]);
        // The task's own jitter adds to its response time and can make it miss.
        List<Task> own = List.of(task("hi", 2, 10, 3), task("lo", 1, 20, 6, 20, 12));
        ResponseTimeAnalysis.Result lo = ResponseTimeAnalysis.analyse(own, Map.of()).get(1);
        assertFalse(lo.schedulable(), "9 + 12 > 20");
    }

    @Test
    void equalPrioritiesCountEachOtherAsInterference() {
        List<Task> set = List.of(task("a", 50, 10, 2), task("b", 50, 10, 2), task("c", 40, 10, 1));
        assertEquals(List.of(4L, 4L, 5L), java.util.Arrays.stream(wcrts(set, Map.of())).boxed().toList());
    }

    @Test
    void priorityInheritanceBlockingIsTheLongestCriticalSectionOfALowerPriorityUser() {
        Task hi = task("hi", 3, 10, 2);
        Task mid = task("mid", 2, 15, 2);
        Task lo = task("lo", 1, 40, 5);
        List<Task> set = List.of(hi, mid, lo);
        List<CriticalSection> cs = List.of(new CriticalSection("r", "test/hi", 1), new CriticalSection("r", "test/lo", 3));
        Map<String, Long> b = Blocking.compute(set, cs);
        assertEquals(3L, b.get("test/hi"));
        assertEquals(3L, b.get("test/mid"), "push-through blocking: lo may run boosted to hi's priority above mid");
        assertEquals(null, b.get("test/lo"), "nobody below lo");
        long[] r = wcrts(set, b);
        assertEquals(5, r[0], "C 2 + B 3");
        assertEquals(7, r[1], "C 2 + B 3 + hi 2");
        assertEquals(9, r[2], "C 5 + hi 2 + mid 2");
    }

    @Test
    void priorityInheritanceBlocksOncePerLowerTaskAndOncePerResource() {
        Task hi = task("hi", 3, 100, 1);
        List<Task> set = List.of(hi, task("l1", 2, 100, 5), task("l2", 1, 100, 5));
        // Two lower tasks on two different resources: blocked by each (chained), 2 + 3.
        assertEquals(5L, Blocking.compute(set, List.of(new CriticalSection("r1", "test/hi", 1), new CriticalSection("r2", "test/hi", 1),
                new CriticalSection("r1", "test/l1", 2), new CriticalSection("r2", "test/l2", 3))).get("test/hi"));
        // One lower task holding either resource: blocked once, by its longest section.
        assertEquals(3L, Blocking.compute(List.of(hi, task("l1", 2, 100, 5)), List.of(new CriticalSection("r1", "test/hi", 1),
                new CriticalSection("r2", "test/hi", 1), new CriticalSection("r1", "test/l1", 2), new CriticalSection("r2", "test/l1", 3))).get("test/hi"));
        // A resource no task at or above hi's priority uses does not block hi.
        assertEquals(null, Blocking.compute(set, List.of(new CriticalSection("r3", "test/l1", 7), new CriticalSection("r3", "test/l2", 7))).get("test/hi"));
    }

    @Test
    void overloadAboveAndHugeFiguresAreUnschedulableNotAHangOrAnOverflow() {
        ResponseTimeAnalysis.Result lo = ResponseTimeAnalysis.analyse(List.of(task("hi", 2, 10, 10), task("lo", 1, 100, 1)), Map.of()).get(1);
        assertFalse(lo.schedulable());
        assertEquals(Long.MAX_VALUE, lo.wcrtNanos(), "100 % above: the recurrence would never end");
        Task huge = task("lo", 1, Long.MAX_VALUE / 2, 1);
        ResponseTimeAnalysis.Result r = ResponseTimeAnalysis.analyse(List.of(task("hi", 2, 4, 3, 4, Long.MAX_VALUE - 10), huge),
                Map.of()).get(1);
        assertFalse(r.schedulable());
        assertTrue(r.wcrtNanos() > huge.deadlineNanos());
        r = ResponseTimeAnalysis.analyse(List.of(task("hi", 2, 4, 3, 4, Long.MAX_VALUE), huge), Map.of()).get(1);
        assertFalse(r.schedulable());
        assertEquals(Long.MAX_VALUE, r.wcrtNanos(), "w + J overflows: beyond any deadline");
    }
}
