package org.rtdroid.bench.rtjperf;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import org.rtdroid.json.JsonWriter;
import org.rtdroid.runtime.event.AsyncEvent;
import org.rtdroid.runtime.event.AsyncEventHandler;
import org.rtdroid.runtime.event.HandlerDispatcher;
import org.rtdroid.runtime.event.HandlerStrategy;
import org.rtdroid.runtime.os.RealtimePolicy;

/**
 * RTJPerf's asynchronous event handler tests (seed 003) on the runtime's {@code event} package,
 * every thread on the cell's one CPU.
 *
 * <p>Dispatch latency (Tables 1-2, Figs. 16-18), in lockstep: a firing thread fires the event and
 * fires again only after the handler has run; the latency is from just before {@code fire()} to
 * the handler's first instruction. The handler (priority {@value #HIGH}) preempts the firer
 * ({@value #FIRER}) at once.
 *
 * <p>Priority inversion (Tables 3-4, Figs. 19-20): the same high-priority handler H among N
 * low-priority handlers ({@value #LOW}) that do nothing, all released by one event; H's dispatch
 * latency should not depend on N. H is attached last, so only the event's priority order puts it
 * first. The firer waits until every handler of a firing has run before the next one.
 */
final class Dispatch {
    static final int HIGH = 80;
    static final int FIRER = 70;
    static final int LOW = 60;
    static final int POOL_THREADS = 2;
    static final long QUIET_NANOS = 100_000;
    /**
     * The most threads one series may start (handlers' and pool's). A bound handler is a
     * SCHED_FIFO thread of its own: a thousand of them on one CPU starve the JVM's own
     * (SCHED_OTHER) threads at a safepoint, and the process stops answering even SIGTERM. Bound
     * handlers therefore go up to {@value #MAX_BOUND_LOWS} low ones; pooled ones to any N.
     */
    static final int MAX_THREADS = 128;
    static final int MAX_BOUND_LOWS = 100;
    /**
     * What one bound handler's thread is taken to cost in resident memory: a parked platform
     * thread measured ~96 KiB (its touched stack, HotSpot's and glibc's per-thread structures;
     * x86_64, ZGC), counted 2.5x for the pages its first releases touch.
     */
    static final long HANDLER_THREAD_BYTES = 256L << 10;
    /** The memory a bound series leaves free in the cell (its kernel, the runtime beside the probe). */
    static final long MEMORY_RESERVE_BYTES = 32L << 20;

    private Dispatch() {}

    /** Records the time of its first instruction in each release. */
    static final class Timed extends AsyncEventHandler {
        final Samples latency;
        volatile long firedAt;
        volatile long handled;
        volatile Thread firer;

        Timed(int priority, int capacity) {
            super("H", priority);
            latency = new Samples(capacity);
        }

        @Override
        public void handleAsyncEvent() {
            long now = System.nanoTime();
            latency.add(now - firedAt);
            handled++;
            LockSupport.unpark(firer);
        }

        /** Sleeps until this handler ran {@code n} times. The firer never spins: a spinning thread
         *  above runnable Java threads keeps them from a safepoint, which stops this handler too. */
        void awaitHandled(long n, Watchdog watchdog) {
            while (handled < n) {
                LockSupport.parkNanos(this, 1_000_000);
                watchdog.check();
            }
        }
    }

    /** Does nothing but count down the firing's outstanding low handlers; the last one wakes the firer. */
    static final class Idle extends AsyncEventHandler {
        private final Outstanding outstanding;

        Idle(int i, Outstanding outstanding) {
            super("low-" + i, LOW);
            this.outstanding = outstanding;
        }

        @Override
        public void handleAsyncEvent() {
            outstanding.done();
        }
    }

    /** The low handlers of one firing that have not run yet; the firer sleeps until none is left. */
    static final class Outstanding {
        final AtomicInteger left = new AtomicInteger();
        volatile Thread firer;

        void done() {
            if (left.decrementAndGet() == 0) {
                LockSupport.unpark(firer);
            }
        }

        /** Sleeps (the low handlers need the CPU) until every low handler of this firing ran. */
        void await(Watchdog watchdog) {
            while (left.get() > 0) {
                LockSupport.parkNanos(this, 1_000_000);
                watchdog.check();
            }
        }
    }

    static RealtimePolicy firerPolicy(org.rtdroid.runtime.os.CpuSet cpu, boolean fifo) {
        return (fifo ? RealtimePolicy.fifo(FIRER) : RealtimePolicy.normal()).withCpus(cpu);
    }

    /** One series: the event, H and {@code lows} low handlers on a fresh dispatcher; fires {@code fires} times. */
    static Timed series(HandlerStrategy strategy, int lows, int fires, IntFunction<RealtimePolicy> policyFor,
                        Watchdog watchdog) throws InterruptedException {
        int threads = strategy == HandlerStrategy.BOUND ? lows + 1 : POOL_THREADS;
        if (threads > MAX_THREADS) {
            throw new IllegalArgumentException(strategy.manifestName() + " handlers with " + lows + " low ones need "
                    + threads + " threads; at most " + MAX_THREADS + " (Dispatch.MAX_THREADS)");
        }
        HandlerDispatcher d = HandlerDispatcher.create("rtjperf-" + strategy.manifestName(), strategy, POOL_THREADS,
                lows + 1, policyFor);
        try {
            AsyncEvent event = new AsyncEvent("rtjperf", lows + 1);
            Outstanding outstanding = new Outstanding();
            outstanding.firer = Thread.currentThread();
            Idle[] low = new Idle[lows];
            for (int i = 0; i < lows; i++) {
                low[i] = new Idle(i, outstanding);
                d.attach(low[i]);
                event.addHandler(low[i]);
            }
            Timed h = new Timed(HIGH, fires);
            h.firer = Thread.currentThread();
            d.attach(h);
            event.addHandler(h);
            // a few firings before measuring: the handler threads start and the JIT compiles the path
            for (int i = 0; i < fires + 20; i++) {
                if (i == 20) {
                    h.latency.clear();
                }
                outstanding.left.set(lows);
                h.firedAt = System.nanoTime();
                event.fire();
                h.awaitHandled(i + 1, watchdog);
                outstanding.await(watchdog);
                // Quiescence before the next firing: the handler threads that just ran (below the
                // firer) finish their bookkeeping and go idle, as they would between real events.
                LockSupport.parkNanos(QUIET_NANOS);
            }
            return h;
        } finally {
            d.stop();
        }
    }

    /**
     * How many of {@code lows} bound low handlers the cell's memory takes: a thread each, and a
     * bound series that ran the cell out of memory would take the cell down with it (qemu-arm64-xen's
     * 512 MiB RT cell did at 100). {@code availableBytes}: the kernel's MemAvailable.
     */
    static int boundLowsThatFit(int lows, long availableBytes) {
        long fit = (availableBytes - MEMORY_RESERVE_BYTES) / HANDLER_THREAD_BYTES - 1; // H's thread too
        return (int) Math.max(0, Math.min(lows, fit));
    }

    /** The kernel's estimate of the memory available to a new process's pages (MemAvailable), or -1 if unknown. */
    static long availableBytes() {
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemAvailable:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (java.io.IOException | NumberFormatException e) {
            // not Linux, or not readable: no cap by memory
        }
        return -1;
    }

    /** A series that was not run, with the reason (a row of its own: nothing left out silently). */
    static void unavailable(PrintStream rows, String test, HandlerStrategy strategy, int lows, String why) {
        rows.println(new JsonWriter().beginObject().field("test", test).field("handler", strategy.manifestName())
                .field("low_handlers", lows).field("unavailable", why).endObject());
    }

    static void row(PrintStream rows, String test, HandlerStrategy strategy, int lows, Samples s, boolean series) {
        row(rows, test, strategy, lows, lows, null, s, series);
    }

    /** {@code cappedBy}: why only {@code lows} of the {@code requested} low handlers ran (null: all did). */
    static void row(PrintStream rows, String test, HandlerStrategy strategy, int lows, int requested, String cappedBy,
                    Samples s, boolean series) {
        JsonWriter w = new JsonWriter().beginObject().field("test", test)
                .field("handler", strategy.manifestName()).field("low_handlers", lows)
                .field("high_priority", HIGH).field("firer_priority", FIRER).field("low_priority", LOW);
        if (cappedBy != null) {
            w.field("requested_low_handlers", requested).field("capped_by", cappedBy);
        }
        if (strategy == HandlerStrategy.POOLED) {
            w.field("pool_threads", POOL_THREADS);
        }
        s.write(w, "latency", true);
        if (series) {
            s.writeSeries(w, "trend_ns");
        }
        rows.println(w.endObject());
    }
}
