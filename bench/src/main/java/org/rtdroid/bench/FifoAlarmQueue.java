package org.rtdroid.bench;

import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.os.PiCondition;
import org.rtdroid.runtime.os.PiMutex;

/**
 * The {@code alarm} benchmark's baseline: Android's AlarmManager semantics. Alarms wait in one
 * list ordered by trigger time and, at one instant, by registration order (no priorities), and
 * the one alarm thread delivers the due ones one after another, running each receiver itself
 * (Android dispatches alarm broadcasts serially). Same bounds and clock as the real-time manager:
 * pre-allocated slots, a {@link PiMutex}, an absolute CLOCK_MONOTONIC wait, and a set whose time
 * has passed is discarded; only the ordering and the delivery thread differ.
 */
final class FifoAlarmQueue {
    /** What an alarm runs, on the alarm thread. */
    interface Receiver {
        void onAlarm(int what, long triggerNanos, long firedNanos);
    }

    /** One alarm slot, created at set-up; scheduled at most once (setting it again replaces it). */
    static final class Alarm {
        final int what;
        final Receiver receiver;
        long triggerNanos;
        boolean scheduled;

        Alarm(int what, Receiver receiver) {
            this.what = what;
            this.receiver = receiver;
        }
    }

    private final PiMutex lock = new PiMutex("fifo-alarms");
    private final PiCondition wake = lock.newCondition();
    private final Alarm[] queue;
    private int size;
    private volatile boolean running = true;

    FifoAlarmQueue(int capacity) {
        queue = new Alarm[capacity];
    }

    /** @return false if {@code triggerNanos} has passed (discarded) */
    boolean set(long triggerNanos, Alarm a) {
        lock.lock();
        try {
            if (triggerNanos < Linux.monotonicNanos()) {
                return false;
            }
            if (a.scheduled) {
                remove(a);
            }
            a.triggerNanos = triggerNanos;
            int i = size;
            while (i > 0 && queue[i - 1].triggerNanos > triggerNanos) { // after every alarm of the same instant
                queue[i] = queue[i - 1];
                i--;
            }
            queue[i] = a;
            size++;
            a.scheduled = true;
            if (i == 0) {
                wake.signal();
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    void cancel(Alarm a) {
        lock.lock();
        try {
            if (a.scheduled) {
                remove(a);
            }
        } finally {
            lock.unlock();
        }
    }

    private void remove(Alarm a) {
        int i = 0;
        while (queue[i] != a) {
            i++;
        }
        System.arraycopy(queue, i + 1, queue, i, size - i - 1);
        queue[--size] = null;
        a.scheduled = false;
    }

    /** The alarm thread's body. */
    void loop() {
        lock.lock();
        try {
            while (running) {
                if (size == 0) {
                    wake.await();
                    continue;
                }
                Alarm top = queue[0];
                long trigger = top.triggerNanos;
                if (trigger > Linux.monotonicNanos()) {
                    wake.awaitUntil(trigger);
                    continue;
                }
                remove(top);
                lock.unlock();
                try {
                    top.receiver.onAlarm(top.what, trigger, Linux.monotonicNanos());
                } finally {
                    lock.lock();
                }
            }
        } finally {
            lock.unlock();
        }
    }

    void stop() {
        running = false;
        lock.lock();
        try {
            wake.signal();
        } finally {
            lock.unlock();
        }
    }
}
