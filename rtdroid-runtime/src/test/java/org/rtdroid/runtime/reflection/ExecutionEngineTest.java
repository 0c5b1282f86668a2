package org.rtdroid.runtime.reflection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.memory.HeapMeter;

/**
 * The engine against its promises. No verdict here depends on how fast the machine is: lateness
 * is made by actions that spin past the next one's begin, and waits are capped liveness bounds.
 */
class ExecutionEngineTest {
    private static final long MS = 1_000_000L;
    private ExecutionEngine engine;
    /** The timeline most tests plan on, and the names of the steps that ran on it, in order. */
    private final RealTimeLine tl = new RealTimeLine("t", 8, 8, 0);
    private final List<String> ran = Collections.synchronizedList(new ArrayList<>());

    @AfterEach
    void stop() throws InterruptedException {
        if (engine != null) {
            engine.stop();
            engine.join(2_000);
        }
    }

    /** Records the order actions ran in; spins until {@code spinUntil} if set. */
    static final class Step extends Action {
        final List<String> ran;
        volatile long spinUntil;
        volatile boolean fail;

        Step(int tag, String name, List<String> ran) {
            super(tag, name);
            this.ran = ran;
        }

        @Override
        public void perform() {
            ran.add(name());
            while (System.nanoTime() < spinUntil) {
                Thread.onSpinWait();
            }
            if (fail) {
                throw new IllegalStateException("boom");
            }
        }
    }

    /** Counts down once per executed action and keeps copies of their intervals. */
    static final class Collect implements Strategist {
        final CountDownLatch done;
        final List<long[]> intervals = Collections.synchronizedList(new ArrayList<>());
        final List<Boolean> clobbered = Collections.synchronizedList(new ArrayList<>());

        Collect(int n) { done = new CountDownLatch(n); }

        @Override
        public void executed(Action a, RealTimeLine tl) {
            TimeInterval i = a.interval();
            intervals.add(new long[] {i.plannedBeginNanos(), i.plannedEndNanos(), i.actualBeginNanos(), i.actualEndNanos()});
            clobbered.add(a.clobbered());
            done.countDown();
        }
    }

    private ExecutionEngine start(RealTimeLine tl, Strategist s) throws InterruptedException {
        return start(tl, s, 0);
    }

    private ExecutionEngine start(RealTimeLine tl, Strategist s, long wakeGuardNanos) throws InterruptedException {
        engine = new ExecutionEngine(tl, s);
        engine.wakeGuardNanos(wakeGuardNanos);
        engine.start("engine-test", () -> {});
        assertNull(engine.awaitStarted(5_000));
        return engine;
    }

    /** Plans "far" on {@link #tl} a minute ahead: the engine waits for it (sleeping, or spinning under a guard). */
    private Step planFar() {
        long now = tl.now();
        Step far = new Step(1, "far", ran);
        tl.plan(far, now + 60_000 * MS, now + 60_001 * MS);
        return far;
    }

    /** Once the engine waits for "far", replaces it as the head with "soon", 1 ms ahead: soon runs at once, alone. */
    private void replaceFarWithSoon(Collect c, String why) throws InterruptedException {
        Thread.sleep(20);
        Step soon = new Step(3, "soon", ran);
        assertTrue(tl.replaceFirst(soon, tl.now() + MS, tl.now() + 2 * MS));
        assertTrue(c.done.await(10, TimeUnit.SECONDS), why);
        assertEquals(List.of("soon"), ran);
    }

    @Test
    void actionsRunInPlannedOrderAndGetTheirActualIntervalStamped() throws Exception {
        Collect c = new Collect(3);
        long t0 = tl.now() + 20 * MS;
        tl.plan(new Step(3, "c", ran), t0 + 2 * MS, t0 + 3 * MS);
        tl.plan(new Step(1, "a", ran), t0, t0 + MS);
        tl.plan(new Step(2, "b", ran), t0 + MS, t0 + 2 * MS);
        start(tl, c);
        assertTrue(c.done.await(10, TimeUnit.SECONDS));
        assertEquals(List.of("a", "b", "c"), ran);
        long previousEnd = Long.MIN_VALUE;
        for (long[] i : c.intervals) {
            assertTrue(i[2] >= i[0] - engine.anticipationNanos(), "never starts before its wake-up");
            assertTrue(i[3] >= i[2]);
            assertTrue(i[2] >= previousEnd, "actions are atomic: one at a time");
            previousEnd = i[3];
        }
        ExecutedInterval e = new ExecutedInterval();
        assertEquals(3, tl.past().recorded());
        assertTrue(tl.past().read(0, e));
        assertEquals(1, e.classTag());
        assertEquals(c.intervals.get(0)[2], e.actualBeginNanos(), "the past holds the same stamps");
    }

    @Test
    void aLateActionStillRunsAndIsFlaggedClobberedAndLate() throws Exception {
        Collect c = new Collect(3);
        long t0 = tl.now() + 20 * MS;
        Step slow = new Step(1, "slow", ran);
        Step next = new Step(2, "next", ran);
        Step past = new Step(3, "planned-in-the-past", ran);
        // slow is planned for 1 ms but spins until 2 ms after next's planned begin.
        slow.spinUntil = t0 + 3 * MS;
        tl.plan(slow, t0, t0 + MS);
        tl.plan(next, t0 + MS, t0 + 2 * MS);
        start(tl, c);
        long cap = System.nanoTime() + 10_000 * MS;
        while (c.intervals.size() < 2 && System.nanoTime() < cap) {
            Thread.sleep(1);
        }
        // Planned after next ended, but in the past by the time it is planned: late, not clobbered.
        long afterNext = c.intervals.get(1)[3] + 1;
        Thread.sleep(5);
        tl.plan(past, afterNext, afterNext + 1);
        assertTrue(c.done.await(10, TimeUnit.SECONDS));
        assertEquals(List.of("slow", "next", "planned-in-the-past"), ran, "late actions run, unconditionally");
        assertEquals(List.of(false, true, false), c.clobbered);
        ExecutedInterval e = new ExecutedInterval();
        tl.past().read(0, e);
        assertTrue(e.has(PastTimeline.LATE), "slow ended after its planned end");
        assertFalse(e.clobbered());
        tl.past().read(1, e);
        assertTrue(e.clobbered(), "next was delayed by slow's late end");
        assertTrue(e.actualBeginNanos() >= slow.spinUntil);
        tl.past().read(2, e);
        assertTrue(e.has(PastTimeline.LATE));
        assertFalse(e.clobbered(), "late because planned in the past, not because of its predecessor");
        assertEquals(1, engine.clobbered());
        assertEquals(3, engine.late(), "slow, next (started after its planned end) and the one planned in the past");
    }

    @Test
    void anActionThatThrowsIsRecordedAsFailedAndTheEngineGoesOn() throws Exception {
        Collect c = new Collect(2);
        Step bad = new Step(1, "bad", ran);
        bad.fail = true;
        long now = tl.now();
        tl.plan(bad, now, now + 100 * MS);
        tl.plan(new Step(2, "good", ran), now, now + 100 * MS);
        start(tl, c);
        assertTrue(c.done.await(10, TimeUnit.SECONDS));
        ExecutedInterval e = new ExecutedInterval();
        tl.past().read(0, e);
        assertTrue(e.has(PastTimeline.FAILED));
        tl.past().read(1, e);
        assertFalse(e.has(PastTimeline.FAILED));
        assertEquals(1, engine.failures());
    }

    @Test
    void aNewEarlierHeadWakesTheSleepingEngineAndAReplacedFirstActionNeverRuns() throws Exception {
        Collect c = new Collect(1);
        start(tl, c);
        Step far = planFar();  // the engine sleeps until then
        replaceFarWithSoon(c, "woken by the head change, not by far's time");
        assertFalse(far.isPlanned());
        assertEquals(0, tl.futureSize());
    }

    @Test
    void aReplacementPlannedBeforeTheSleptForActionWakesTheEngineWithALaterActionBehindIt() throws Exception {
        Collect c = new Collect(1);
        start(tl, c);
        planFar();  // the engine sleeps for far
        long later = tl.now() + 120_000 * MS;
        tl.plan(new Step(2, "after", ran), later, later + MS);
        replaceFarWithSoon(c, "woken by the replacement, not by far's time");
        assertEquals(1, tl.futureSize(), "the later action stays planned");
    }

    @Test
    void aReplacementPlannedBeforeTheActionTheEngineSpinsForEndsTheSpin() throws Exception {
        Collect c = new Collect(1);
        start(tl, c, 3_600_000 * MS);  // the engine spins for anything planned within the hour
        planFar();
        replaceFarWithSoon(c, "the spin saw the replacement (far is a minute away)");
    }

    @Test
    void observersHearOfEveryEntryIntoThePastInOrderBeforeTheStrategist() throws Exception {
        RealTimeLine tl = new RealTimeLine("t", 8, 8, 1);
        List<Long> seqs = Collections.synchronizedList(new ArrayList<>());
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        tl.addObserver(new TimelineObserver() {
            @Override
            public void enteredPast(PastTimeline past, long seq) {
                seqs.add(seq);
                order.add("past#" + seq);
            }
        });
        CountDownLatch done = new CountDownLatch(3);
        start(tl, (a, t) -> {
            order.add("strategist:" + a.name());
            done.countDown();
        });
        long now = tl.now();
        for (int i = 0; i < 3; i++) {
            tl.plan(new Step(i, "s" + i, new ArrayList<>()), now + i, now + i + MS);
        }
        assertTrue(done.await(10, TimeUnit.SECONDS));
        assertEquals(List.of(0L, 1L, 2L), seqs);
        assertEquals(List.of("past#0", "strategist:s0", "past#1", "strategist:s1", "past#2", "strategist:s2"), order);
    }

    /**
     * A strategist that keeps one action cycling: each time it has run, reads its past entry and
     * plans it again a little ahead, so the engine sleeps on every one.
     */
    static final class Cycle implements Strategist {
        final ExecutedInterval copy = new ExecutedInterval();
        final FeedbackCalibration calibration = new FeedbackCalibration(1, 20_000);
        ExecutionEngine engine;
        volatile long runs;
        volatile long limit;

        @Override
        public void executed(Action a, RealTimeLine tl) {
            tl.past().latest(copy);
            calibration.onExecuted(a, engine);
            long n = runs + 1;
            runs = n;
            if (n < limit) {
                // Far enough ahead that the calibrated engine still sleeps for each one.
                long begin = tl.now() + 200_000;
                tl.plan(a, begin, begin + 10_000);
            }
        }
    }

    @Test
    void withAWakeGuardTheEngineSpinsToTheInstantAndNeverStartsEarly() throws Exception {
        RealTimeLine tl = new RealTimeLine("guard", 8, 16, 0);
        Collect c = new Collect(3);
        boolean[] spun = new boolean[3];
        int[] k = {0};
        Step[] steps = {new Step(0, "g0", new ArrayList<>()), new Step(1, "g1", new ArrayList<>()),
            new Step(2, "g2", new ArrayList<>())};
        start(tl, (a, t) -> {
            spun[k[0]++] = engine.lastSpun();
            c.executed(a, t);
            if (k[0] < 3) {  // each one well ahead of the engine, which reaches it by spinning
                long next = t.now() + 30 * MS;
                t.plan(steps[k[0]], next, next + MS);
            }
        });
        // A guard longer than the lead: the engine is awake within it from the start, so it spins.
        engine.wakeGuardNanos(3_600_000 * MS);
        long now = tl.now();
        tl.plan(steps[0], now + 30 * MS, now + 31 * MS);
        assertTrue(c.done.await(10, TimeUnit.SECONDS));
        for (int i = 0; i < 3; i++) {
            long[] in = c.intervals.get(i);
            assertTrue(in[2] >= in[0], "never starts before its planned begin");
            assertTrue(spun[i], "action " + i + " was reached by spinning");
        }
        assertThrows(IllegalArgumentException.class, () -> engine.wakeGuardNanos(-1));
    }

    @Test
    void aHeadPlannedEarlierEndsTheSpin() throws Exception {
        RealTimeLine tl = new RealTimeLine("guard-head", 8, 16, 0);
        List<String> ran = Collections.synchronizedList(new ArrayList<>());
        Collect c = new Collect(2);
        start(tl, c);
        engine.wakeGuardNanos(3_600_000 * MS);
        long now = tl.now();
        tl.plan(new Step(1, "late", ran), now + 3_600_000 * MS, now + 3_600_000 * MS + 1);
        Thread.sleep(20);  // the engine is spinning towards "late"
        tl.plan(new Step(2, "soon", ran), tl.now() + MS, tl.now() + 2 * MS);
        long waited = System.nanoTime();
        while (ran.isEmpty() && System.nanoTime() - waited < 10_000 * MS) {
            Thread.sleep(1);
        }
        assertEquals(List.of("soon"), ran);
    }

    @Test
    void theEngineAndTheStrategistAllocateNothingPerActionAfterWarmUp() throws Exception {
        allocatesNothingPerAction(0);
    }

    @Test
    void theGuardedEngineAllocatesNothingPerActionAfterWarmUp() throws Exception {
        allocatesNothingPerAction(300_000);  // longer than the cycle's 200 us lead: every action is spun for
    }

    private void allocatesNothingPerAction(long guardNanos) throws Exception {
        assertTrue(HeapMeter.supported(), "this JVM must measure per-thread allocation");
        RealTimeLine tl = new RealTimeLine("alloc", 4, 64, 1);
        tl.addObserver(new TimelineObserver() {});
        Cycle cycle = new Cycle();
        cycle.calibration.enabled(true);
        start(tl, cycle);
        engine.wakeGuardNanos(guardNanos);
        cycle.engine = engine;
        Action step = new Action(1, "step") {
            long sum;

            @Override
            public void perform() { sum++; }
        };
        int window = 2_000;
        long engineBytes = -1;
        // Warm-up (the JIT compiles the loop), then up to three windows: one must be clean (a
        // one-off deoptimisation can allocate once; a real per-action allocation shows in each).
        for (int w = 0; w < 8 && engineBytes != 0; w++) {
            long target = cycle.runs + window;
            cycle.limit = target;
            long before = HeapMeter.threadAllocatedBytes(engine.thread().threadId());
            long now = tl.now();
            tl.plan(step, now, now + 10_000);
            while (cycle.runs < target) {
                Thread.sleep(1);
            }
            while (step.isPlanned()) {
                Thread.sleep(1);
            }
            long used = HeapMeter.threadAllocatedBytes(engine.thread().threadId()) - before;
            if (w >= 5) {
                engineBytes = used;
            }
        }
        assertEquals(0, engineBytes, "bytes the engine thread allocated over " + window + " actions");

        // The planner's side: plan, replace and cancel from another thread.
        Step a = new Step(2, "a", new ArrayList<>());
        Step b = new Step(3, "b", new ArrayList<>());
        long plannerBytes = -1;
        for (int w = 0; w < 3 && plannerBytes != 0; w++) {
            long before = HeapMeter.currentThreadAllocatedBytes();
            for (int i = 0; i < 20_000; i++) {
                long far = tl.now() + 3_600_000 * MS;
                tl.plan(a, far, far + 1);
                tl.replaceFirst(b, far + 2, far + 3);
                tl.cancel(b);
            }
            plannerBytes = HeapMeter.currentThreadAllocatedBytes() - before;
        }
        assertEquals(0, plannerBytes, "bytes a planning thread allocated over 20,000 plan/replace/cancel");
    }
}
