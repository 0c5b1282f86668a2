package org.rtdroid.runtime.sensor;

import org.rtdroid.runtime.event.AsyncEvent;
import org.rtdroid.runtime.event.AsyncEventHandler;
import org.rtdroid.runtime.os.ExecutionMeter;

/**
 * The listeners of one sensor at one priority on one CPU: an {@link AsyncEventHandler} at that
 * priority, pinned to that CPU (so their callbacks run at their component's priority and on its
 * CPU, on a bound or pooled thread of the sensor's dispatcher) with a single-producer, single-consumer ring of pre-allocated {@link SensorEvent}s
 * filled by the sensor's processing thread. A run delivers one event to every listener of the
 * lane, in registration order. A lane exists from the first registration at its priority and CPU on;
 * its listeners change, its handler stays attached. Full ring: {@value SensorService#QUEUE_POLICY}, counted.
 */
final class ListenerLane extends AsyncEventHandler {
    /**
     * One registered listener, its sampling period (a hint, as in Android) and where its
     * callbacks are counted (its component's {@link ListenerStats}; null: nowhere).
     */
    static final class Registration {
        final SensorEventListener listener;
        final long periodNanos;
        final ListenerStats stats;
        long lastTimestamp = Long.MIN_VALUE;

        Registration(SensorEventListener listener, long periodNanos, ListenerStats stats) {
            this.listener = listener;
            this.periodNanos = periodNanos;
            this.stats = stats;
        }

        /** Due when at least 7/8 of the period passed since the last delivered event (frames jitter). */
        boolean due(long timestamp) {
            if (periodNanos == 0 || lastTimestamp == Long.MIN_VALUE || (timestamp - lastTimestamp) * 8 >= periodNanos * 7) {
                lastTimestamp = timestamp;
                return true;
            }
            return false;
        }
    }

    static final Registration[] NONE = new Registration[0];

    final AsyncEvent event;
    private final SensorEvent[] ring;
    private volatile long head;
    private volatile long tail;
    /** Copy-on-write (registration is set-up): the handler iterates a snapshot without locking. */
    volatile Registration[] listeners = NONE;
    private volatile long dropped;
    private volatile long delivered;
    private volatile long failures;
    private volatile Throwable lastFailure;
    /**
     * Per event, from the frame's time stamp to the start of the lane's first due listener: with
     * the evdev reader's CLOCK_MONOTONIC stamps (taken by the kernel's input core as the frame
     * was written into the device), the write into the device to the callback. Written by the
     * lane's handler only (one run at a time).
     */
    final LatencyHistogram latency = new LatencyHistogram();

    ListenerLane(String name, int priority, int depth) {
        super(name, priority);
        this.event = new AsyncEvent(name, 1);
        this.ring = new SensorEvent[depth];
        for (int i = 0; i < depth; i++) {
            ring[i] = new SensorEvent();
        }
    }

    /** Processing thread: queue a copy of {@code e} and release the handler. @return false if dropped */
    boolean post(SensorEvent e) {
        long t = tail;
        if (t - head == ring.length) {
            dropped++;
            return false;
        }
        ring[(int) (t % ring.length)].copyFrom(e);
        tail = t + 1;
        event.fire();
        return true;
    }

    /**
     * Delivers the oldest queued event to every listener of the lane. One event per run, so that
     * under the pooled strategy a higher-priority lane's next event goes before this lane's
     * following ones. If events remain and no run is owed, the lane fires itself again: no event
     * waits on the dispatcher's bookkeeping matching the ring exactly.
     */
    @Override
    public void handleAsyncEvent() {
        long h = head;
        if (h == tail) {
            return;
        }
        SensorEvent e = ring[(int) (h % ring.length)];
        try {
            Registration[] ls = listeners;
            boolean timed = false;
            for (int i = 0; i < ls.length; i++) {
                Registration r = ls[i];
                if (!r.due(e.timestamp)) {
                    continue;
                }
                // System.nanoTime is clock_gettime(CLOCK_MONOTONIC) on Linux: evdev's clock here
                long start = System.nanoTime();
                if (!timed) {
                    latency.record(start - e.timestamp);
                    timed = true;
                }
                ListenerStats stats = r.stats;
                long cpu = stats == null ? 0 : ExecutionMeter.start();
                try {
                    r.listener.onSensorChanged(e);
                    delivered++;
                } catch (Throwable t) {
                    // one failing listener neither stops the others nor the lane
                    failures++;
                    lastFailure = t;
                }
                if (stats != null) {
                    stats.record(e.timestamp, start, System.nanoTime(), cpu);
                }
            }
        } finally {
            head = h + 1;
        }
        if (h + 1 != tail && pendingFireCount() <= 0) {
            event.fire();
        }
    }

    /** Events queued and not yet delivered. */
    long queued() { return tail - head; }

    long dropped() { return dropped; }

    long delivered() { return delivered; }

    long failures() { return failures; }

    Throwable lastFailure() { return lastFailure; }
}
