package org.rtdroid.runtime.reflection;

/**
 * Told of changes to a {@link RealTimeLine} (seed 004's observers, section 4.2): the head of the
 * future timeline changed, or an executed action entered the past. Registered at set-up; called
 * on the thread that made the change (the planner for a head change, the engine for the past), so
 * an observer must be short and must not allocate.
 */
public interface TimelineObserver {
    /** The first action of the future timeline is now {@code head} (null: the future is empty). */
    default void headChanged(Action head) {}

    /** The action that just ran was recorded as entry {@code seq} of {@code past}. */
    default void enteredPast(PastTimeline past, long seq) {}
}
