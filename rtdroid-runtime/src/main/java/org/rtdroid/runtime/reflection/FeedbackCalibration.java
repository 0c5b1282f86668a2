package org.rtdroid.runtime.reflection;

/**
 * Closed-loop feedback calibration of the engine's wake-up (seed 004, section 5.5, Listing 6), a
 * tactic a strategist may switch on: after each action of one class that started on its own wake-up
 * (not clobbered by the previous action, not already due when planned), the engine's anticipation
 * moves half way towards the wake-up latency observed (a one-tick difference all the way, as in the
 * seed), so that the wake-up latency of the platform, interrupt to thread, is absorbed at the one
 * place that causes it. It adapts by itself when that latency drifts.
 *
 * <p>Listing 6 calibrates for drift, not for spikes: on a shared machine one interrupt or
 * preemption can make one action tens of microseconds (or milliseconds) late, and half of that taken
 * as a correction makes the next actions start that much early. So the latency aimed at is the
 * median of the last five observed (each action's begin error plus the anticipation it ran with):
 * up to two outliers among them (one interrupt, or one over each of two frames in a row) are never
 * the median and move nothing, while a lasting change is followed three actions later. Until five are observed, the
 * median of those there are (of an even number, the middle one nearer the anticipation); the first
 * alone is only kept. One step is also clamped to {@code maxStepNanos}, for longer runs of
 * outliers. Call {@link #onExecuted} from the strategist, on the engine's thread. Allocation-free.
 */
public final class FeedbackCalibration {
    /** Latencies the aim is the median of: up to two outliers among them move nothing. */
    private static final int WINDOW = 5;
    private final int classTag;
    private final long maxStepNanos;
    private volatile boolean enabled;
    private volatile long corrections;
    private volatile long lastErrorNanos;
    /** The wake-up latencies of the last {@link #WINDOW} calibrated actions (a ring), on the engine's thread. */
    private final long[] latencies = new long[WINDOW];
    private final long[] sorted = new long[WINDOW];
    private int observed;
    private int next;

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
        if (!enabled) {
            observed = 0;  // switched on again, it starts from fresh observations
            next = 0;
            return;
        }
        if (action.classTag() != classTag || action.clobbered() || !sleptFor) {
            return;
        }
        long error = action.interval().beginErrorNanos();
        lastErrorNanos = error;
        long anticipation = engine.anticipationNanos();
        latencies[next] = anticipation + error;  // the latency, whatever the anticipation was
        next = (next + 1) % WINDOW;
        observed = Math.min(WINDOW, observed + 1);
        if (observed < 2) {
            return;  // one observation may be the outlier
        }
        long difference = latencyAimedAt(anticipation) - anticipation;
        if (difference == 0) {
            return;  // timely: nothing to correct
        }
        long step = Math.abs(difference) == 1 ? difference : difference / 2;
        step = Math.max(-maxStepNanos, Math.min(maxStepNanos, step));
        engine.anticipationNanos(anticipation + step);
        corrections++;
    }

    /** The median of the latencies observed; of an even number, the middle one nearer {@code anticipation}. */
    private long latencyAimedAt(long anticipation) {
        int n = observed;
        for (int i = 0; i < n; i++) {  // insertion sort of at most WINDOW values, in place of a copy
            long v = latencies[i];
            int j = i - 1;
            while (j >= 0 && sorted[j] > v) {
                sorted[j + 1] = sorted[j];
                j--;
            }
            sorted[j + 1] = v;
        }
        if (n % 2 == 1) {
            return sorted[n / 2];
        }
        long low = sorted[n / 2 - 1];
        long high = sorted[n / 2];
        return Math.abs(low - anticipation) <= Math.abs(high - anticipation) ? low : high;
    }
}
