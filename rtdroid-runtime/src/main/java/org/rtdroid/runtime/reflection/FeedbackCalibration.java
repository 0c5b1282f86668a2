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
 * median of the last three observed (each action's begin error plus the anticipation it ran with):
 * a single outlier is never the median and moves nothing, while a lasting change is followed one
 * action later. Until three are observed, the one of two nearer the anticipation is aimed at, and
 * the first alone is only kept. One step is also clamped to {@code maxStepNanos}, for two outliers
 * in a row. Call {@link #onExecuted} from the strategist, on the engine's thread. Allocation-free.
 */
public final class FeedbackCalibration {
    private static final int WINDOW = 3;
    private final int classTag;
    private final long maxStepNanos;
    private volatile boolean enabled;
    private volatile long corrections;
    private volatile long lastErrorNanos;
    /** The wake-up latencies of the last {@link #WINDOW} calibrated actions (a ring), on the engine's thread. */
    private final long[] latencies = new long[WINDOW];
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

    /** The median of three observed latencies; of two, the one nearer {@code anticipation}. */
    private long latencyAimedAt(long anticipation) {
        long a = latencies[0];
        long b = latencies[1];
        if (observed == 2) {
            return Math.abs(a - anticipation) <= Math.abs(b - anticipation) ? a : b;
        }
        long c = latencies[2];
        return Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));
    }
}
