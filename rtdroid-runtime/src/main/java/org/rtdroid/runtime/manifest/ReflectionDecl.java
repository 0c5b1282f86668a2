package org.rtdroid.runtime.manifest;

/**
 * {@code <reflection engine-priority budget period future past/>} inside a {@code <service>}: the
 * component is reflective (seed 004). Its execution engine runs the actions its strategist plans
 * on one thread at {@code enginePriority}, above every other thread of the component, on the
 * component's CPU; static validation models that thread as a periodic task of cost
 * {@code budgetNanos} every {@code periodNanos} (the most the strategist's plan puts on it in any
 * window of that length). {@code futureCapacity} bounds the future timeline, {@code pastCapacity}
 * the past one.
 */
public record ReflectionDecl(int enginePriority, long budgetNanos, long periodNanos, int futureCapacity,
                             int pastCapacity, int line) {
    public static final int MAX_FUTURE = 1024;
    public static final int MAX_PAST = 65_536;
}
