package org.rtdroid.runtime.channel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;

/**
 * One sender's endpoint on one channel: its name and priority (the priority its messages are
 * queued at) and its pre-allocated "your message was stolen" notice. Created at deployment. The
 * cross-context router's endpoint on an inbound channel is a relay: its messages carry the origin
 * of the request it relays ({@link CrossContextOrigin}) as their sender's identity.
 */
public final class ChannelSender {
    /** The message was queued. */
    public static final int SENT = 0;
    /** The channel was full and its drop policy refused this message. */
    public static final int DROPPED_FULL = -1;

    private final String name;
    private final byte[] nameBytes;
    private final int priority;
    private final boolean throwOnSteal;
    private final MessageStolenException stolen;
    private final CrossContextOrigin relayed;
    /** Written under the channel's lock (steal, send) and by {@link #takeStolen} from anywhere: atomic. */
    private volatile long stolenPending;
    private static final VarHandle STOLEN_PENDING;

    static {
        try {
            STOLEN_PENDING = MethodHandles.lookup().findVarHandle(ChannelSender.class, "stolenPending", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private long stolenTotal;
    private long sent;
    private long refused;

    public ChannelSender(String channelName, String name, int priority, boolean throwOnSteal) {
        this(channelName, name, priority, throwOnSteal, null);
    }

    /** The relay endpoint of the cross-context router: queues at {@code priority}, stamps {@code relayed}. */
    public static ChannelSender relay(String channelName, String name, int priority, CrossContextOrigin relayed) {
        return new ChannelSender(channelName, name, priority, false, relayed);
    }

    private ChannelSender(String channelName, String name, int priority, boolean throwOnSteal,
            CrossContextOrigin relayed) {
        this.relayed = relayed;
        this.name = name;
        this.nameBytes = name.getBytes(StandardCharsets.UTF_8);
        this.priority = priority;
        this.throwOnSteal = throwOnSteal;
        this.stolen = new MessageStolenException(channelName, name);
    }

    public String name() { return name; }
    public int priority() { return priority; }
    byte[] nameBytes() { return nameBytes; }

    /** Stamps this endpoint (and, for a relay, the relayed request's origin) on a message being filled. */
    void stamp(RealtimeIntent m, long nowNanos) {
        m.stampSender(nameBytes, priority, nowNanos);
        if (relayed != null) {
            relayed.stampOnto(m);
        }
    }
    public long sent() { return sent; }
    public long refused() { return refused; }
    public long stolenTotal() { return stolenTotal; }

    /** Called under the channel's lock. */
    void markStolen() {
        STOLEN_PENDING.getAndAdd(this, 1L);
        stolenTotal++;
    }

    void countSent() { sent++; }

    void countRefused() { refused++; }

    /** Called under the channel's lock at the start of a send: throws if a steal is pending. */
    void throwIfStolen() {
        if (throwOnSteal && stolenPending > 0) {
            long n = (long) STOLEN_PENDING.getAndSet(this, 0L);
            if (n > 0) {
                stolen.setCount(n);
                throw stolen;
            }
        }
    }

    /** @return how many of this sender's messages were stolen since the last call (and clears it) */
    public long takeStolen() {
        return (long) STOLEN_PENDING.getAndSet(this, 0L);
    }
}
