package org.rtdroid.runtime.channel;

import java.util.concurrent.locks.LockSupport;

/**
 * The send skeleton every channel shares: a fixed set of slots (messages, intents or transfer
 * scopes) with a free list and the sender that owns each queued slot. A send takes a free slot or,
 * when none is left, asks its channel's {@link Reclaimer} for a queued one (the drop policy),
 * marking that slot's sender stolen; a refusal is counted on the channel and on the sender.
 * Filling ({@link #fill}) stamps the sender before the closure runs, so a closure cannot forge it;
 * the cross-context router's relay endpoint stamps the Android sender's identity and the request's
 * transport fields too (queueing still uses the sender endpoint's priority, never the intent's
 * fields).
 *
 * <p>Not thread-safe: every method but {@link #wake} runs under its channel's lock. No allocation.
 */
final class SlotPool {
    /** A channel's drop policy: frees a queued slot for a sender at {@code priority}, or -1 to refuse. */
    interface Reclaimer {
        int reclaimFor(int priority);
    }

    private final int[] free;
    private int freeCount;
    private final ChannelSender[] owners;
    private long stolenCount;
    private long droppedCount;

    SlotPool(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1");
        }
        free = new int[capacity];
        owners = new ChannelSender[capacity];
        for (int i = 0; i < capacity; i++) {
            free[i] = i;
        }
        freeCount = capacity;
    }

    int capacity() { return owners.length; }

    /**
     * Starts a send: throws the sender's pending stolen notice, then takes a free slot or one the
     * reclaimer frees. @return the slot, or -1 when the drop policy refused (counted)
     */
    int take(ChannelSender sender, int priority, Reclaimer reclaimer) {
        sender.throwIfStolen();
        if (freeCount > 0) {
            return free[--freeCount];
        }
        int slot = reclaimer.reclaimFor(priority);
        if (slot < 0) {
            droppedCount++;
            sender.countRefused();
        }
        return slot;
    }

    /**
     * Stamps the sender on the taken slot's intent and lets {@code closure} fill it; if the
     * closure throws, the slot goes back to the free list and the exception propagates.
     */
    void fill(int slot, RealtimeIntent intent, ChannelSender sender, MessageClosure closure) {
        intent.clear();
        sender.stamp(intent, System.nanoTime());
        try {
            closure.genMsg(intent);
        } catch (RuntimeException | Error e) {
            release(slot);
            throw e;
        }
    }

    /**
     * The whole send of an intent channel up to queueing: {@link #take}, {@link #fill} the slot's
     * intent of {@code intents}, {@link #queued}. @return the slot, or -1 when the drop policy refused
     */
    int takeFilled(ChannelSender sender, int priority, Reclaimer reclaimer, RealtimeIntent[] intents,
                   MessageClosure closure) {
        int slot = take(sender, priority, reclaimer);
        if (slot >= 0) {
            fill(slot, intents[slot], sender, closure);
            queued(slot, sender);
        }
        return slot;
    }

    /** The slot is queued on behalf of {@code sender}. */
    void queued(int slot, ChannelSender sender) {
        owners[slot] = sender;
        sender.countSent();
    }

    /** The slot left the queue for delivery: it can no longer be stolen from its sender. */
    void dequeued(int slot) {
        owners[slot] = null;
    }

    /** A queued slot was reclaimed by the drop policy: its sender learns at its next send. */
    void stolen(int slot) {
        ChannelSender victim = owners[slot];
        owners[slot] = null;
        if (victim != null) {
            victim.markStolen();
        }
        stolenCount++;
    }

    /** The slot is free again (delivered, or its fill failed). */
    void release(int slot) {
        owners[slot] = null;
        free[freeCount++] = slot;
    }

    long stolenCount() { return stolenCount; }
    long droppedCount() { return droppedCount; }

    /** Wakes a parked consumer; called after the channel's lock is released. */
    static void wake(Thread consumer) {
        if (consumer != null) {
            LockSupport.unpark(consumer);
        }
    }
}
