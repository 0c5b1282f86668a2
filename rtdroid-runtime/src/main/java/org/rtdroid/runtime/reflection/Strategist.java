package org.rtdroid.runtime.reflection;

/**
 * The application's timing policy (seed 004, section 5.3): its action handlers are called by the
 * execution engine right after each action has run, with the action's actual interval stamped, and
 * plan what comes next on the timeline. Policy lives here, never in the engine: a late action was
 * still run, and what to do about it is the strategist's decision.
 *
 * <p>Called on the engine's thread, before it looks at the future timeline again; must not
 * allocate after warm-up.
 */
@FunctionalInterface
public interface Strategist {
    /** {@code action} has run ({@link Action#interval()} holds its actual begin and end). */
    void executed(Action action, RealTimeLine timeline);
}
