package org.rtdroid.bench.looper.fifo;

/**
 * {@code android.os.MessageQueue} semantics: one queue ordered by delivery time, FIFO among equal
 * times, unbounded, with no notion of the sender's priority. Android blocks in epoll with a
 * millisecond timeout; a monitor wait with a millisecond timeout behaves the same.
 */
final class MessageQueue {
    private Message messages;
    private boolean quitting;

    boolean enqueueMessage(Message msg, long when) {
        synchronized (this) {
            if (msg.inUse) {
                throw new IllegalStateException("This message is already in use.");
            }
            if (quitting) {
                msg.recycleUnchecked();
                return false;
            }
            msg.inUse = true;
            msg.when = when;
            Message p = messages;
            if (p == null || when - p.when < 0) {
                msg.next = p;
                messages = msg;
                notify();
            } else {
                Message prev;
                for (;;) {
                    prev = p;
                    p = p.next;
                    if (p == null || when - p.when < 0) {
                        break;
                    }
                }
                msg.next = p;
                prev.next = msg;
                notify();
            }
        }
        return true;
    }

    /** @return the next due message, blocking until one is; null when quitting */
    Message next() {
        synchronized (this) {
            for (;;) {
                if (quitting) {
                    return null;
                }
                long now = System.nanoTime();
                Message msg = messages;
                if (msg != null && msg.when - now <= 0) {
                    messages = msg.next;
                    msg.next = null;
                    return msg;
                }
                try {
                    if (msg == null) {
                        wait();
                    } else {
                        // Android: nativePollOnce(ptr, timeoutMillis), rounded up to whole milliseconds.
                        long millis = Math.max(1, (msg.when - now + 999_999) / 1_000_000);
                        wait(millis);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return null;
                }
            }
        }
    }

    /** Android's MessageQueue.hasMessages(h, what, null). */
    boolean hasMessages(Handler h, boolean anyWhat, int what) {
        synchronized (this) {
            for (Message p = messages; p != null; p = p.next) {
                if (p.target == h && (anyWhat || p.what == what)) {
                    return true;
                }
            }
            return false;
        }
    }

    /** Android's MessageQueue.removeMessages(h, what, null): unlinks and recycles the matches. */
    void removeMessages(Handler h, boolean anyWhat, int what) {
        synchronized (this) {
            Message prev = null;
            Message p = messages;
            while (p != null) {
                Message next = p.next;
                if (p.target == h && (anyWhat || p.what == what)) {
                    if (prev == null) {
                        messages = next;
                    } else {
                        prev.next = next;
                    }
                    p.recycleUnchecked();
                } else {
                    prev = p;
                }
                p = next;
            }
        }
    }

    void quit() {
        synchronized (this) {
            quitting = true;
            while (messages != null) {
                Message m = messages;
                messages = m.next;
                m.recycleUnchecked();
            }
            notifyAll();
        }
    }
}
