package org.rtdroid.bench.looper;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A message of the RT looper, the counterpart of {@code android.os.Message} without {@code obj}:
 * payloads are the int fields, a fixed {@link #data} long array and a fixed {@link #bytes} buffer,
 * all allocated with the handler's pool before start. Obtain one from its {@link RtHandler}, fill
 * it, send it, and do not touch it afterwards: the looper returns it to the pool after
 * {@code handleMessage}.
 */
public final class RtMessage {
    static final int FREE = 0;
    static final int OBTAINED = 1;
    static final int QUEUED = 2;
    static final int HANDLING = 3;
    /** Removed by {@link RtHandler#removeMessages} while queued: never dispatched, the looper frees it. */
    static final int CANCELLED = 4;
    private static final long STATE_MASK = 0xff;

    private static final VarHandle STATUS;

    static {
        try {
            STATUS = MethodHandles.lookup().findVarHandle(RtMessage.class, "status", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** User-defined message code, as in Android. */
    public int what;
    public int arg1;
    public int arg2;
    /** Fixed-length long payload (length set by the handler's pool); e.g. a send timestamp. */
    public final long[] data;
    /** Fixed-capacity byte payload; {@link #bytesLength} says how much of it is used. */
    public final byte[] bytes;
    public int bytesLength;

    final RtHandler target;
    final int poolIndex;
    /**
     * {@code sends << 8 | state}. Only a queued message is shared between threads (the looper
     * dispatching it, a remover cancelling it), so QUEUED is left by compare-and-set only; the
     * send count makes a remover's CAS fail if the message was handled and sent again meanwhile.
     */
    private long status;
    int specifiedPriority = -1;
    int priority;
    long whenNanos;
    /** Link in a looper inbox (written by the sender before its CAS publishes the message). */
    RtMessage next;
    /** Link in the looper-owned, time-ordered list of one priority level. */
    RtMessage sortedNext;

    RtMessage(RtHandler target, int poolIndex, int dataLongs, int payloadBytes) {
        this.target = target;
        this.poolIndex = poolIndex;
        this.data = new long[dataLongs];
        this.bytes = new byte[payloadBytes];
    }

    public RtHandler getTarget() {
        return target;
    }

    /** The priority the message was queued at (after the handler's policy was applied). */
    public int getPriority() {
        return priority;
    }

    /** Delivery time on the {@link System#nanoTime} / CLOCK_MONOTONIC time base. */
    public long getWhenNanos() {
        return whenNanos;
    }

    /**
     * Under {@link MessagePolicy#INHERITANCE_SPECIFIED}, the priority this message should be queued
     * at (capped at the sender's priority). Ignored under {@link MessagePolicy#INHERITANCE}.
     */
    public RtMessage setPriority(int priority) {
        if (priority < 0 || priority >= RtLooper.PRIORITY_LEVELS) {
            throw new IllegalArgumentException("message priority " + priority + " is outside 0.." + (RtLooper.PRIORITY_LEVELS - 1));
        }
        this.specifiedPriority = priority;
        return this;
    }

    /** @return FREE, OBTAINED, QUEUED, HANDLING or CANCELLED */
    int state() {
        return (int) ((long) STATUS.getAcquire(this) & STATE_MASK);
    }

    /** For states only the owner can be in (FREE, OBTAINED): nobody else writes the status meanwhile. */
    void setOwnedState(int state) {
        STATUS.setRelease(this, (status & ~STATE_MASK) | state);
    }

    /** OBTAINED -> QUEUED, by its sender, publishing the fields it filled. */
    void markQueued() {
        STATUS.setRelease(this, ((status >>> 8) + 1) << 8 | QUEUED);
    }

    /** QUEUED -> HANDLING, by the looper; false if a remover cancelled it first. */
    boolean beginHandling() {
        long s = (long) STATUS.getAcquire(this);
        return (s & STATE_MASK) == QUEUED && STATUS.compareAndSet(this, s, (s & ~STATE_MASK) | HANDLING);
    }

    /** QUEUED -> CANCELLED if it is still queued with code {@code what}; any thread. */
    boolean cancelIfQueued(boolean anyWhat, int what) {
        long s = (long) STATUS.getAcquire(this);
        return (s & STATE_MASK) == QUEUED && (anyWhat || this.what == what)
                && STATUS.compareAndSet(this, s, (s & ~STATE_MASK) | CANCELLED);
    }

    /** @return true if queued (not cancelled, not being handled) with code {@code what} */
    boolean isQueued(boolean anyWhat, int what) {
        return state() == QUEUED && (anyWhat || this.what == what);
    }

    /** Sends this message to its handler now ({@code msg.sendToTarget()} as in Android). */
    public boolean sendToTarget() {
        return target.sendMessage(this);
    }

    /** Returns a message that was obtained but will not be sent. */
    public void recycle() {
        int state = state();
        if (state != OBTAINED) {
            throw new IllegalStateException("only an obtained, unsent message can be recycled (state " + state + ")");
        }
        target.release(this);
    }

    void clear() {
        what = 0;
        arg1 = 0;
        arg2 = 0;
        bytesLength = 0;
        java.util.Arrays.fill(data, 0L);
        specifiedPriority = -1;
        priority = 0;
        whenNanos = 0;
        next = null;
        sortedNext = null;
    }

    @Override
    public String toString() {
        return "RtMessage{what=" + what + ", arg1=" + arg1 + ", arg2=" + arg2 + ", priority=" + priority + ", when=" + whenNanos + "}";
    }
}
