package org.rtdroid.bench.looper;

import java.util.concurrent.atomic.AtomicLong;
import org.rtdroid.runtime.os.RealtimeThreads;

/**
 * The RT counterpart of {@code android.os.Handler}: senders obtain messages from it and send them;
 * its looper's thread calls {@link #handleMessage}. Unlike Android's global, growing pool, each
 * handler owns a fixed pool of {@code poolCapacity} messages allocated here, so that a sender that
 * floods its handler exhausts only its own pool and can never take messages from another sender.
 *
 * <p>Sending is lock-free and allocation-free: a message's priority comes from the looper's
 * {@link MessagePolicy} and the sender's declared real-time priority, and the looper dispatches the
 * highest-priority due message first.
 */
public class RtHandler {
    /** Handles messages when the handler is not subclassed (Android's {@code Handler.Callback}). */
    @FunctionalInterface
    public interface Callback {
        void handleMessage(RtMessage msg);
    }

    private final RtLooper looper;
    private final Callback callback;
    private final String name;
    private final RtMessage[] pool;
    /** Free-list of pool indices: a Treiber stack whose top carries a version against ABA. */
    private final int[] nextFree;
    private final AtomicLong freeTop = new AtomicLong();
    private final MessagePoolExhaustedException exhausted;
    private final AtomicLong exhaustedCount = new AtomicLong();

    /** A handler with {@code poolCapacity} messages of 2 longs and no byte payload. */
    public RtHandler(RtLooper looper, String name, int poolCapacity) {
        this(looper, name, poolCapacity, 2, 0, null);
    }

    public RtHandler(RtLooper looper, String name, int poolCapacity, int dataLongs, int payloadBytes, Callback callback) {
        if (looper == null) {
            throw new IllegalArgumentException("RT handler '" + name + "' needs a looper");
        }
        if (poolCapacity < 1 || poolCapacity > 1 << 20) {
            throw new IllegalArgumentException("RT handler '" + name + "': pool capacity " + poolCapacity + " is outside 1..1048576");
        }
        if (dataLongs < 0 || payloadBytes < 0) {
            throw new IllegalArgumentException("RT handler '" + name + "': negative payload size");
        }
        this.looper = looper;
        this.name = name;
        this.callback = callback;
        this.pool = new RtMessage[poolCapacity];
        this.nextFree = new int[poolCapacity];
        for (int i = 0; i < poolCapacity; i++) {
            pool[i] = new RtMessage(this, i, dataLongs, payloadBytes);
            nextFree[i] = i + 2 > poolCapacity ? 0 : i + 2; // stored as index+1, 0 = end of list
        }
        freeTop.set(1); // index 0 on top, version 0
        this.exhausted = new MessagePoolExhaustedException(name, poolCapacity);
    }

    /** Subclasses override this, as with Android's Handler; the default hands to the callback. */
    public void handleMessage(RtMessage msg) {
        if (callback != null) {
            callback.handleMessage(msg);
        }
    }

    public final RtLooper getLooper() {
        return looper;
    }

    public final String getName() {
        return name;
    }

    public final int poolCapacity() {
        return pool.length;
    }

    /** How many obtain calls found the pool empty. */
    public final long exhaustedCount() {
        return exhaustedCount.get();
    }

    // ---------------------------------------------------------------- obtain

    /**
     * @return a cleared message from this handler's pool
     * @throws MessagePoolExhaustedException (pre-allocated) when every message is in use
     */
    public final RtMessage obtainMessage() {
        RtMessage m = tryObtainMessage();
        if (m == null) {
            throw exhausted;
        }
        return m;
    }

    public final RtMessage obtainMessage(int what) {
        RtMessage m = obtainMessage();
        m.what = what;
        return m;
    }

    public final RtMessage obtainMessage(int what, int arg1, int arg2) {
        RtMessage m = obtainMessage();
        m.what = what;
        m.arg1 = arg1;
        m.arg2 = arg2;
        return m;
    }

    /** @return a message, or null when the pool is exhausted (counted, nothing thrown) */
    public final RtMessage tryObtainMessage() {
        for (;;) {
            long top = freeTop.get();
            int slot = (int) top; // index + 1
            if (slot == 0) {
                exhaustedCount.incrementAndGet();
                return null;
            }
            int next = nextFree[slot - 1];
            long newTop = (((top >>> 32) + 1) << 32) | (next & 0xFFFF_FFFFL);
            if (freeTop.compareAndSet(top, newTop)) {
                RtMessage m = pool[slot - 1];
                m.setOwnedState(RtMessage.OBTAINED);
                return m;
            }
        }
    }

    final void release(RtMessage m) {
        m.clear();
        m.setOwnedState(RtMessage.FREE);
        int slot = m.poolIndex + 1;
        for (;;) {
            long top = freeTop.get();
            nextFree[m.poolIndex] = (int) top;
            long newTop = (((top >>> 32) + 1) << 32) | slot;
            if (freeTop.compareAndSet(top, newTop)) {
                return;
            }
        }
    }

    // ---------------------------------------------------------------- send

    public final boolean sendMessage(RtMessage msg) {
        return sendMessageAtTimeNanos(msg, System.nanoTime());
    }

    public final boolean sendEmptyMessage(int what) {
        return sendMessage(obtainMessage(what));
    }

    /** @param delayMillis milliseconds from now, as in Android */
    public final boolean sendMessageDelayed(RtMessage msg, long delayMillis) {
        return sendMessageAtTimeNanos(msg, System.nanoTime() + Math.max(0, delayMillis) * 1_000_000L);
    }

    /** @param uptimeMillis an absolute time in {@link RtLooper#uptimeMillis()} milliseconds */
    public final boolean sendMessageAtTime(RtMessage msg, long uptimeMillis) {
        return sendMessageAtTimeNanos(msg, uptimeMillis * 1_000_000L);
    }

    /**
     * Queues {@code msg} for delivery at {@code whenNanos} (System.nanoTime time base). The message
     * belongs to the looper from here on.
     *
     * @return false if the looper is quitting (the message is returned to the pool)
     */
    public final boolean sendMessageAtTimeNanos(RtMessage msg, long whenNanos) {
        if (msg.target != this) {
            throw new IllegalArgumentException("message belongs to handler '" + msg.target.name + "', not '" + name + "'");
        }
        if (msg.state() != RtMessage.OBTAINED) {
            throw new IllegalStateException("RT handler '" + name + "': message is already queued or was not obtained");
        }
        int sender = RealtimeThreads.declaredPriority();
        int p = sender;
        if (looper.policy() == MessagePolicy.INHERITANCE_SPECIFIED && msg.specifiedPriority >= 0) {
            p = Math.min(msg.specifiedPriority, sender);
        }
        msg.priority = p;
        msg.whenNanos = whenNanos;
        msg.markQueued();
        if (!looper.enqueue(msg)) {
            release(msg);
            return false;
        }
        return true;
    }

    // ---------------------------------------------------------------- remove / query (android.os.Handler)

    /**
     * Removes every queued message of this handler with code {@code what}, as
     * {@code android.os.Handler.removeMessages(int)}: none of them is dispatched after this returns
     * (one already being handled is not affected). They return to this handler's pool at once when
     * called on the looper's thread (e.g. from {@code handleMessage}), otherwise as soon as the
     * looper runs again, before it dispatches anything else. Allocation-free; O(pool capacity).
     */
    public final void removeMessages(int what) {
        remove(false, what);
    }

    /**
     * {@code android.os.Handler.removeCallbacksAndMessages(null)}: removes every queued message of
     * this handler (see {@link #removeMessages(int)} for when they return to the pool).
     *
     * @param token must be null: RT messages carry no {@code obj}, so no token could match
     * @throws IllegalArgumentException for a non-null token
     */
    public final void removeCallbacksAndMessages(Object token) {
        if (token != null) {
            throw new IllegalArgumentException("RT handler '" + name + "': RT messages carry no obj, so only "
                    + "removeCallbacksAndMessages(null) (remove all) is meaningful");
        }
        remove(true, 0);
    }

    /** @return true if a message of this handler with code {@code what} is queued (not being handled) */
    public final boolean hasMessages(int what) {
        for (RtMessage m : pool) {
            if (m.isQueued(false, what)) {
                return true;
            }
        }
        return false;
    }

    /** @return how many messages of this handler are queued (not being handled) */
    public final int queuedCount() {
        int n = 0;
        for (RtMessage m : pool) {
            if (m.isQueued(true, 0)) {
                n++;
            }
        }
        return n;
    }

    /** @return messages of this pool free to obtain now */
    public final int freeCount() {
        int n = 0;
        for (RtMessage m : pool) {
            if (m.state() == RtMessage.FREE) {
                n++;
            }
        }
        return n;
    }

    private void remove(boolean all, int what) {
        int cancelled = 0;
        for (RtMessage m : pool) {
            if (m.cancelIfQueued(all, what)) {
                cancelled++;
            }
        }
        if (cancelled > 0) {
            looper.purgeCancelled();
        }
    }

    @Override
    public String toString() {
        return "RtHandler{" + name + " on " + looper.getName() + "}";
    }
}
