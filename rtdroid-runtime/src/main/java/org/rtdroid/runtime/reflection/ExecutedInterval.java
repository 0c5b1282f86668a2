package org.rtdroid.runtime.reflection;

/**
 * A reader's copy of one past-timeline entry ({@link PastTimeline#read}): made by the reader once
 * and refilled, so reading the past allocates nothing. The entry itself never changes.
 */
public final class ExecutedInterval {
    private long seq = -1;
    private int classTag;
    private int flags;
    private long plannedBeginNanos;
    private long plannedEndNanos;
    private long actualBeginNanos;
    private long actualEndNanos;

    void set(long seq, int classTag, int flags, long pb, long pe, long ab, long ae) {
        this.seq = seq;
        this.classTag = classTag;
        this.flags = flags;
        this.plannedBeginNanos = pb;
        this.plannedEndNanos = pe;
        this.actualBeginNanos = ab;
        this.actualEndNanos = ae;
    }

    /** Its position in the past timeline (from 0), -1 before the first read. */
    public long seq() { return seq; }
    public int classTag() { return classTag; }
    public int flags() { return flags; }
    public boolean has(int flag) { return (flags & flag) != 0; }
    public boolean clobbered() { return has(PastTimeline.CLOBBERED); }
    public long plannedBeginNanos() { return plannedBeginNanos; }
    public long plannedEndNanos() { return plannedEndNanos; }
    public long actualBeginNanos() { return actualBeginNanos; }
    public long actualEndNanos() { return actualEndNanos; }
    public long beginErrorNanos() { return actualBeginNanos - plannedBeginNanos; }
    public long actualDurationNanos() { return actualEndNanos - actualBeginNanos; }

    @Override
    public String toString() {
        return "#" + seq + " tag " + classTag + " planned [" + plannedBeginNanos + ", " + plannedEndNanos + "] actual ["
                + actualBeginNanos + ", " + actualEndNanos + "] flags " + flags;
    }
}
