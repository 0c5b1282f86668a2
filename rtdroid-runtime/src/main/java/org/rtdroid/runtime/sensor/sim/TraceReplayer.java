package org.rtdroid.runtime.sensor.sim;

import org.rtdroid.runtime.os.Linux;

/**
 * Replays a {@link MotionTrace} into an accelerometer and a gyroscope at the trace's timing: each
 * sample is written at {@code start + offset} on CLOCK_MONOTONIC (absolute sleeps, so timing
 * errors do not accumulate), accelerometer frame first, then gyroscope frame.
 */
public final class TraceReplayer {
    private final MotionTrace trace;
    private final InputEventWriter accelerometer;
    private final InputEventWriter gyroscope;
    private volatile long written;

    public TraceReplayer(MotionTrace trace, InputEventWriter accelerometer, InputEventWriter gyroscope) {
        this.trace = trace;
        this.accelerometer = accelerometer;
        this.gyroscope = gyroscope;
    }

    /** Replays the whole trace starting at {@code startNanos} (CLOCK_MONOTONIC); returns when the last sample is written. */
    public void replay(long startNanos) {
        for (int i = 0; i < trace.size(); i++) {
            Linux.sleepUntilNanos(startNanos + trace.offsetNanos(i));
            accelerometer.writeFrame(trace.accelUnits(i, 0), trace.accelUnits(i, 1), trace.accelUnits(i, 2));
            gyroscope.writeFrame(trace.gyroUnits(i, 0), trace.gyroUnits(i, 1), trace.gyroUnits(i, 2));
            written = i + 1;
        }
    }

    /** Samples written so far. */
    public long written() { return written; }
}
