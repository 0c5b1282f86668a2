package org.rtdroid.runtime.reflection;

/**
 * Closed-loop feedback calibration of the engine's wake-up (seed 004, section 5.5, Listing 6), a
 * tactic a strategist may switch on: after each action of one class that started on its own wake-up
 * (not clobbered by the previous action, not already due when planned), the error actual − planned
 * begin moves the engine's anticipation by half of itself (a one-tick error by all of it, as in the
 * seed), so that the wake-up latency of the platform, interrupt to thread, is absorbed at the one
 * place that causes it. It adapts by itself when that latency changes.
 *
 * <p>One step is clamped to {@code maxStepNanos}: on a shared machine a single preemption can make
 * one action milliseconds late, and half of that taken as a correction would make the next actions
 * start that much early. Call {@link #onExecuted} from the strategist, on the engine's thread.
 * Allocation-free.
 */
public final class FeedbackCalibration {
    private final int classTag;
    private final long maxStepNanos;
    private volatile boolean enabled;
    private volatile long corrections;
    private volatile long lastErrorNanos;

    /**
     * @param classTag the class of actions whose start is calibrated (the seed: display)
     * @param maxStepNanos the largest change of the anticipation one action may cause
     */
    public FeedbackCalibration(int classTag, long maxStepNanos) {
        if (maxStepNanos <= 0) {
            throw new IllegalArgumentException("maxStepNanos " + maxStepNanos + " <= 0");
        }
        this.classTag = classTag;
        this.maxStepNanos = maxStepNanos;
    }

    public void enabled(boolean on) { enabled = on; }

    public boolean enabled() { return enabled; }

    /** Corrections applied so far. */
    public long corrections() { return corrections; }

    /** The begin error of the last action considered. */
    public long lastErrorNanos() { return lastErrorNanos; }

    /** Calibrates {@code engine} from {@code action}, which has just run on it. */
    public void onExecuted(Action action, ExecutionEngine engine) {
        // With a wake guard, a wake-up later than the guard is the platform's jitter tail: taken as
        // a correction it would make the next actions start early. Only a spun start is calibrated.
        boolean own = engine.lastSleptFor() && (engine.wakeGuardNanos() == 0 || engine.lastSpun());
        onExecuted(action, own, engine);
    }

    /**
     * @param sleptFor whether the engine slept until {@code action} was due ({@link ExecutionEngine#lastSleptFor})
     */
    public void onExecuted(Action action, boolean sleptFor, Calibratable engine) {
        if (!enabled || action.classTag() != classTag || action.clobbered() || !sleptFor) {
            return;
        }
        long error = action.interval().beginErrorNanos();
        lastErrorNanos = error;
        if (error == 0) {
            return;  // timely: nothing to correct
        }
        long step = Math.abs(error) == 1 ? error : error / 2;
        step = Math.max(-maxStepNanos, Math.min(maxStepNanos, step));
        engine.anticipationNanos(engine.anticipationNanos() + step);
        corrections++;
    }
}
