package org.rtdroid.runtime.reflection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The timelines on their own, without an engine: order, replacement, bounds, observers, the past. */
class RealTimeLineTest {
    static final class Noop extends Action {
        Noop(int tag, String name) { super(tag, name); }

        @Override
        public void perform() {}
    }

    static final class Heads implements TimelineObserver {
        final List<Action> heads = new ArrayList<>();

        @Override
        public void headChanged(Action head) { heads.add(head); }
    }

    @Test
    void theFutureIsOrderedByPlannedBeginAndEqualBeginsKeepTheOrderPlanned() {
        RealTimeLine tl = new RealTimeLine("t", 8, 8, 1);
        Heads h = new Heads();
        tl.addObserver(h);
        long t0 = tl.now() + 1_000_000_000L;
        Noop c = new Noop(3, "c");
        Noop a = new Noop(1, "a");
        Noop b1 = new Noop(2, "b1");
        Noop b2 = new Noop(2, "b2");
        assertTrue(tl.plan(c, t0 + 300, t0 + 400));
        assertTrue(tl.plan(b1, t0 + 200, t0 + 300));
        assertTrue(tl.plan(b2, t0 + 200, t0 + 250));
        assertTrue(tl.plan(a, t0 + 100, t0 + 200));
        assertSame(a, tl.first());
        assertEquals(4, tl.futureSize());
        assertEquals(List.of(c, b1, a), h.heads, "observers hear of each new head, and only of those");
        assertTrue(tl.cancel(a));
        assertSame(b1, tl.first(), "equal begins: the one planned first");
        assertTrue(tl.cancel(b1));
        assertSame(b2, tl.first());
        assertFalse(tl.cancel(a), "a is no longer planned");
        assertEquals(2, tl.cancelled());
    }

    @Test
    void theFirstActionCanBeReplacedUntilItStartsAndReplacementKeepsTheOrder() {
        RealTimeLine tl = new RealTimeLine("t", 4, 4, 1);
        Heads h = new Heads();
        tl.addObserver(h);
        Noop analyse = new Noop(1, "analyse");
        Noop display = new Noop(2, "display");
        Noop cheaper = new Noop(1, "analyse-cheaper");
        assertFalse(tl.replaceFirst(cheaper, 0, 0), "nothing to replace");
        long t0 = tl.now() + 1_000_000_000L;
        tl.plan(display, t0 + 5_000, t0 + 6_000);
        tl.plan(analyse, t0, t0 + 4_000);
        assertTrue(tl.replaceFirst(cheaper, t0 + 1_000, t0 + 2_000));
        assertSame(cheaper, tl.first());
        assertFalse(analyse.isPlanned(), "the replaced action is free to plan again");
        assertTrue(cheaper.isPlanned());
        assertEquals(1, tl.replaced());
        assertEquals(2, tl.futureSize());
        // A replacement planned after the second action makes that one the head.
        Noop late = new Noop(3, "late");
        assertTrue(tl.replaceFirst(late, t0 + 9_000, t0 + 9_500));
        assertSame(display, tl.first());
        assertSame(display, h.heads.get(h.heads.size() - 1));
        assertThrows(IllegalStateException.class, () -> tl.plan(display, t0, t0), "already planned");
        assertThrows(IllegalArgumentException.class, () -> tl.plan(analyse, t0 + 2, t0 + 1), "end before begin");
    }

    @Test
    void aFullFutureRejectsTheNewestAndCountsIt() {
        RealTimeLine tl = new RealTimeLine("t", 2, 4, 0);
        long t0 = tl.now() + 1_000_000_000L;
        Noop a = new Noop(0, "a");
        Noop b = new Noop(0, "b");
        Noop c = new Noop(0, "c");
        assertTrue(tl.plan(a, t0 + 10, t0 + 10));
        assertTrue(tl.plan(b, t0 + 20, t0 + 20));
        assertFalse(tl.plan(c, t0 + 5, t0 + 5), "full: refused even though it would be first");
        assertFalse(c.isPlanned());
        assertEquals(1, tl.rejected());
        assertEquals(OverflowPolicy.REJECT_NEWEST, tl.futureOverflowPolicy());
        assertSame(a, tl.first());
    }

    @Test
    void thePastKeepsItsNewestEntriesImmutableAndCountsWhatGaveWay() {
        PastTimeline p = new PastTimeline("p", 3);
        ExecutedInterval e = new ExecutedInterval();
        assertFalse(p.latest(e));
        for (int i = 0; i < 5; i++) {
            p.record(7, i * 10, i * 10 + 5, i * 10 + 1, i * 10 + 6, i == 4 ? PastTimeline.CLOBBERED : 0);
        }
        assertEquals(5, p.recorded());
        assertEquals(2, p.overwritten());
        assertEquals(2, p.oldest());
        assertFalse(p.read(1, e), "overwritten");
        assertFalse(p.read(5, e), "not recorded yet");
        assertTrue(p.read(2, e));
        assertEquals(20, e.plannedBeginNanos());
        assertEquals(26, e.actualEndNanos());
        assertEquals(7, e.classTag());
        assertTrue(p.latest(e));
        assertEquals(4, e.seq());
        assertTrue(e.clobbered());
        assertEquals(1, e.beginErrorNanos());
        assertEquals(OverflowPolicy.OVERWRITE_OLDEST, p.overflowPolicy());
    }

    @Test
    void aReaderNeverSeesATornEntryWhileTheWriterOverwrites() throws Exception {
        PastTimeline p = new PastTimeline("p", 4);
        int n = 200_000;
        Thread writer = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < n; i++) {
                p.record(i, i, i, i, i, i);  // every field of entry i holds i
            }
        });
        ExecutedInterval e = new ExecutedInterval();
        long reads = 0;
        while (writer.isAlive() || reads == 0) {
            long last = p.recorded() - 1;
            if (last >= 0 && p.read(last, e)) {
                reads++;
                assertEquals(e.seq(), e.classTag());
                assertEquals(e.seq(), e.plannedBeginNanos());
                assertEquals(e.seq(), e.plannedEndNanos());
                assertEquals(e.seq(), e.actualBeginNanos());
                assertEquals(e.seq(), e.actualEndNanos());
                assertEquals(e.seq(), e.flags());
            }
        }
        writer.join();
        assertTrue(reads > 0);
    }

    @Test
    void anEmptyTimelineHasNoHead() {
        RealTimeLine tl = new RealTimeLine("t", 1, 1, 0);
        assertNull(tl.first());
        assertThrows(IllegalStateException.class, () -> tl.addObserver(new Heads()), "no room for observers");
    }
}
