package org.rtdroid.bench.looper.fifo;

/**
 * {@code android.os.Message} with stock semantics, for benchmarks only: a global pool of at most
 * {@value #MAX_POOL_SIZE} recycled messages that allocates a new one when empty, exactly as Android
 * does. Payload fields match {@link org.rtdroid.bench.looper.RtMessage} so the same benchmark
 * code drives both.
 */
public final class Message {
    static final int MAX_POOL_SIZE = 50;
    private static final Object POOL_SYNC = new Object();
    private static Message pool;
    private static int poolSize;

    public int what;
    public int arg1;
    public int arg2;
    public final long[] data = new long[2];

    Handler target;
    long when;
    Message next;
    boolean inUse;

    /** Use {@link #obtain()} (or {@code Handler.obtainMessage}). */
    public Message() {}

    public static Message obtain() {
        synchronized (POOL_SYNC) {
            if (pool != null) {
                Message m = pool;
                pool = m.next;
                m.next = null;
                poolSize--;
                return m;
            }
        }
        return new Message();
    }

    public static Message obtain(Handler h) {
        Message m = obtain();
        m.target = h;
        return m;
    }

    public Handler getTarget() {
        return target;
    }

    /** Delivery time in nanoseconds (System.nanoTime); Android keeps uptimeMillis. */
    public long getWhen() {
        return when;
    }

    public void sendToTarget() {
        target.sendMessage(this);
    }

    void recycleUnchecked() {
        inUse = false;
        what = 0;
        arg1 = 0;
        arg2 = 0;
        data[0] = 0;
        data[1] = 0;
        target = null;
        when = 0;
        synchronized (POOL_SYNC) {
            if (poolSize < MAX_POOL_SIZE) {
                next = pool;
                pool = this;
                poolSize++;
            }
        }
    }
}
