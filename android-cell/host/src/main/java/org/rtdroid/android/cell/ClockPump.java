package org.rtdroid.android.cell;

import java.time.Duration;

import org.robolectric.shadows.ShadowSystemClock;

/**
 * The framework's SystemClock is frozen in the cell's sandbox; a clock pump advances it every
 * millisecond by the real time that passed, so that postDelayed, postAtTime and timeouts fire on
 * time. The cell's host runs one for its life; a benchmark on the main looper runs one while it
 * measures.
 */
public final class ClockPump implements AutoCloseable {
    private static final long MILLI_NANOS = 1_000_000L;
    private final Thread thread;
    private volatile boolean running = true;

    private ClockPump(String threadName) {
        thread = new Thread(this::pump, threadName);
        thread.setDaemon(true);
    }

    /** Starts a pump on a daemon thread of that name. */
    public static ClockPump start(String threadName) {
        ClockPump p = new ClockPump(threadName);
        p.thread.start();
        return p;
    }

    /** Stops advancing the clock (the thread ends within a millisecond). */
    @Override
    public void close() {
        running = false;
    }

    private void pump() {
        long last = System.nanoTime();
        long debt = 0;
        while (running) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            debt += now - last;
            last = now;
            long millis = debt / MILLI_NANOS;
            if (millis > 0) {
                ShadowSystemClock.advanceBy(Duration.ofMillis(millis));
                debt -= millis * MILLI_NANOS;
            }
        }
    }
}
