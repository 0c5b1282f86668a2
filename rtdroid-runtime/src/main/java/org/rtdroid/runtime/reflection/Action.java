package org.rtdroid.runtime.reflection;

/**
 * An operation bound to a time interval (seed 004, Listing 1-2): the strategist plans it on a
 * {@link RealTimeLine}'s future timeline, the execution engine runs {@link #perform} at its planned
 * begin and stamps its actual interval. The class tag lets the strategist tell its actions apart
 * cheaply; the clobber flag says the engine could not start it on time because the previous
 * action ended after this one's planned begin.
 *
 * <p>Actions are made at set-up and reused: planning one again after it has run overwrites its
 * interval (the past timeline keeps its own immutable copy of every executed interval). An action
 * is on at most one timeline at a time.
 */
public abstract class Action {
    enum State { IDLE, PLANNED, RUNNING }

    private final int classTag;
    private final String name;
    final TimeInterval interval = new TimeInterval();
    volatile State state = State.IDLE;
    RealTimeLine timeline;
    boolean clobber;

    /**
     * @param classTag what kind of action this is, for the strategist (and the past timeline)
     * @param name a short name for traces and error messages
     */
    protected Action(int classTag, String name) {
        this.classTag = classTag;
        this.name = name;
    }

    /** The action's work. Runs on the engine's thread at its priority; must not allocate after warm-up. */
    public abstract void perform();

    public final int classTag() { return classTag; }

    public final String name() { return name; }

    /** Planned and (once it has run) actual interval. */
    public final TimeInterval interval() { return interval; }

    /** Its start was delayed by the late end of the previous action (set when it has run). */
    public final boolean clobbered() { return clobber; }

    /** Planned on a timeline and not started yet. */
    public final boolean isPlanned() { return state == State.PLANNED; }

    @Override
    public String toString() {
        return name + "[" + classTag + "]";
    }
}
