package org.rtdroid.bench.looper.fifo;

/**
 * {@code android.os.Looper} with stock semantics: the comparison baseline of the looper benchmark.
 * Not for real-time use.
 */
public final class Looper {
    private static final ThreadLocal<Looper> CURRENT = new ThreadLocal<>();

    final MessageQueue queue = new MessageQueue();
    private final Thread thread;

    private Looper() {
        this.thread = Thread.currentThread();
    }

    public static void prepare() {
        if (CURRENT.get() != null) {
            throw new RuntimeException("Only one Looper may be created per thread");
        }
        CURRENT.set(new Looper());
    }

    public static Looper myLooper() {
        return CURRENT.get();
    }

    public static void loop() {
        Looper me = CURRENT.get();
        if (me == null) {
            throw new RuntimeException("No Looper; Looper.prepare() wasn't called on this thread.");
        }
        for (;;) {
            Message msg = me.queue.next();
            if (msg == null) {
                CURRENT.remove();
                return;
            }
            msg.target.dispatchMessage(msg);
            msg.recycleUnchecked();
        }
    }

    public Thread getThread() {
        return thread;
    }

    public void quit() {
        queue.quit();
    }
}
