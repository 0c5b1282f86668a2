package org.rtdroid.bench.looper.fifo;

/** {@code android.os.Handler} with stock semantics (benchmark baseline). */
public class Handler {
    public interface Callback {
        boolean handleMessage(Message msg);
    }

    private final Looper looper;
    private final Callback callback;

    public Handler(Looper looper) {
        this(looper, null);
    }

    public Handler(Looper looper, Callback callback) {
        if (looper == null) {
            throw new IllegalArgumentException("Handler needs a looper");
        }
        this.looper = looper;
        this.callback = callback;
    }

    public void handleMessage(Message msg) {}

    public void dispatchMessage(Message msg) {
        if (callback != null && callback.handleMessage(msg)) {
            return;
        }
        handleMessage(msg);
    }

    public final Looper getLooper() {
        return looper;
    }

    public final Message obtainMessage() {
        return Message.obtain(this);
    }

    public final Message obtainMessage(int what) {
        Message m = Message.obtain(this);
        m.what = what;
        return m;
    }

    public final Message obtainMessage(int what, int arg1, int arg2) {
        Message m = Message.obtain(this);
        m.what = what;
        m.arg1 = arg1;
        m.arg2 = arg2;
        return m;
    }

    public final boolean sendMessage(Message msg) {
        return sendMessageAtTimeNanos(msg, System.nanoTime());
    }

    public final boolean sendEmptyMessage(int what) {
        return sendMessage(obtainMessage(what));
    }

    public final boolean sendMessageDelayed(Message msg, long delayMillis) {
        return sendMessageAtTimeNanos(msg, System.nanoTime() + Math.max(0, delayMillis) * 1_000_000L);
    }

    public final boolean sendMessageAtTime(Message msg, long uptimeMillis) {
        return sendMessageAtTimeNanos(msg, uptimeMillis * 1_000_000L);
    }

    public final boolean sendMessageAtTimeNanos(Message msg, long whenNanos) {
        msg.target = this;
        return looper.queue.enqueueMessage(msg, whenNanos);
    }

    /** As {@code android.os.Handler.removeMessages(int)}: queued messages with code {@code what} are recycled. */
    public final void removeMessages(int what) {
        looper.queue.removeMessages(this, false, what);
    }

    /** As {@code android.os.Handler.removeCallbacksAndMessages}; only null (all) is meaningful here (no obj). */
    public final void removeCallbacksAndMessages(Object token) {
        if (token != null) {
            throw new IllegalArgumentException("fifo messages carry no obj: only removeCallbacksAndMessages(null) applies");
        }
        looper.queue.removeMessages(this, true, 0);
    }

    /** As {@code android.os.Handler.hasMessages(int)}. */
    public final boolean hasMessages(int what) {
        return looper.queue.hasMessages(this, false, what);
    }
}
