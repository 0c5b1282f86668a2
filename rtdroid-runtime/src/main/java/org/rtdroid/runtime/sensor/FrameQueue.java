package org.rtdroid.runtime.sensor;

import java.util.concurrent.locks.LockSupport;
import org.rtdroid.runtime.os.Linux;

/**
 * Raw input frames from the polling thread to one processing thread: a single-producer,
 * single-consumer ring of pre-allocated slots (time, source device, three axis values). Full
 * policy {@value SensorService#QUEUE_POLICY}: a frame that finds the ring full is dropped and
 * counted; the consumer is always behind by at most the ring's depth of frames.
 */
final class FrameQueue {
    static final int ACCELEROMETER = 0;
    static final int GYROSCOPE = 1;

    private final long[] time;
    /** When the polling thread took each frame from its device (CLOCK_MONOTONIC). */
    private final long[] read;
    private final int[] source;
    private final int[] axes; // 3 per slot
    private volatile long head;
    private volatile long tail;
    private volatile long dropped;
    volatile Thread consumer;

    FrameQueue(int depth) {
        time = new long[depth];
        read = new long[depth];
        source = new int[depth];
        axes = new int[3 * depth];
    }

    /** Polling thread: @return false if the ring was full (the frame is dropped and counted) */
    boolean offer(int from, long timeNanos, int[] xyz) {
        long t = tail;
        if (t - head == time.length) {
            dropped++;
            return false;
        }
        int i = (int) (t % time.length);
        time[i] = timeNanos;
        read[i] = Linux.monotonicNanos();
        source[i] = from;
        axes[3 * i] = xyz[0];
        axes[3 * i + 1] = xyz[1];
        axes[3 * i + 2] = xyz[2];
        tail = t + 1;
        Thread c = consumer;
        if (c != null) {
            LockSupport.unpark(c);
        }
        return true;
    }

    boolean isEmpty() { return head == tail; }

    /** Consumer: slot index of the oldest frame (check {@link #isEmpty} first); {@link #advance} when done. */
    int peek() { return (int) (head % time.length); }

    void advance() { head = head + 1; }

    long time(int slot) { return time[slot]; }

    long readTime(int slot) { return read[slot]; }

    int source(int slot) { return source[slot]; }

    int axis(int slot, int axis) { return axes[3 * slot + axis]; }

    long dropped() { return dropped; }
}
