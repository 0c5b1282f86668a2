package org.rtdroid.runtime.manifest;

/**
 * {@code <reflection engine-priority budget period future past wake-guard wakes/>} inside a
 * {@code <service>}: the component is reflective (seed 004). Its execution engine runs the actions
 * its strategist plans on one thread at {@code enginePriority}, above every other thread of the
 * component, on the component's CPU. {@code budgetNanos} is the most CPU time the strategist's plan
 * puts on that thread in any window of {@code periodNanos}; {@code futureCapacity} bounds the
 * future timeline, {@code pastCapacity} the past one.
 *
 * <p>{@code wakeGuardNanos} (0: none, the seed's engine) makes the engine sleep until that long
 * before each action it waits for and spin on the clock for the rest, at its priority. That spin is
 * CPU time too: each action the engine wakes for costs at most the guard (a head replaced or
 * cancelled during a spin, what was spun so far), and {@code wakes} is the most actions it wakes
 * for in any window of one period. Static validation models the engine as a periodic task of cost
 * {@link #engineCostNanos()} = budget + wakes × guard every period.
 */
public record ReflectionDecl(int enginePriority, long budgetNanos, long periodNanos, int futureCapacity,
                             int pastCapacity, long wakeGuardNanos, int wakes, int line) {
    public static final int MAX_FUTURE = 1024;
    public static final int MAX_PAST = 65_536;
    /** The longest wake guard: 10 ms of spinning per wake is more than any platform's wake-up latency. */
    public static final long MAX_WAKE_GUARD_NANOS = 10_000_000L;
    public static final int MAX_WAKES = MAX_FUTURE;

    /** The engine's CPU time in any window of one period: the actions' budget and the guard's spins. */
    public long engineCostNanos() {
        return budgetNanos + wakes * wakeGuardNanos;
    }
}
