package org.rtdroid.runtime.event;

/**
 * An event that, when fired, releases each attached handler at the handler's own priority, through
 * the dispatcher the handler was attached to ({@link HandlerDispatcher#attach}). Handlers are
 * attached at set-up, up to a fixed number; {@link #fire} allocates nothing and never blocks for
 * longer than the dispatcher's queueing step.
 */
public final class AsyncEvent {
    private final String name;
    private final AsyncEventHandler[] handlers;
    private volatile int count;
    private volatile long fires;

    public AsyncEvent(String name, int maxHandlers) {
        if (maxHandlers < 1) {
            throw new IllegalArgumentException("event '" + name + "': maxHandlers must be at least 1");
        }
        this.name = name;
        this.handlers = new AsyncEventHandler[maxHandlers];
    }

    /**
     * Set-up: the handler must already be attached to a dispatcher. Handlers are kept in priority
     * order, highest first (in the order added among equals): {@link #fire} releases the most urgent
     * first, so a high-priority handler's dispatch does not wait behind the releases of any number of
     * lower ones (jRate's priority-ordered handler list, seed 003's priority inversion test).
     */
    public synchronized void addHandler(AsyncEventHandler h) {
        if (h.dispatcher == null) {
            throw new IllegalStateException("handler '" + h.name() + "' is not attached to a dispatcher");
        }
        if (count == handlers.length) {
            throw new IllegalStateException("event '" + name + "' already has its " + handlers.length + " handlers");
        }
        int at = count;
        while (at > 0 && handlers[at - 1].priority() < h.priority()) {
            handlers[at] = handlers[at - 1];
            at--;
        }
        handlers[at] = h;
        count = count + 1;
    }

    /** Releases every handler once, highest priority first (each runs at its own priority). */
    public void fire() {
        int n = count;
        for (int i = 0; i < n; i++) {
            AsyncEventHandler h = handlers[i];
            h.dispatcher.release(h);
        }
        fires++;
    }

    public String name() { return name; }

    public long fires() { return fires; }

    public int handlerCount() { return count; }
}
