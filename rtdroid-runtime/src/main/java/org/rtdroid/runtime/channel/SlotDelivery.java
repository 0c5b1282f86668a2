package org.rtdroid.runtime.channel;

import org.rtdroid.runtime.os.PiMutex;

/**
 * The receive skeleton every channel shares ({@link SlotPool} is the send one): one queued slot is
 * taken under the channel's lock, handed to its consumer outside the lock (a callback never holds
 * it, so no sender waits on a receiver's work, and the slot cannot be stolen meanwhile: it is no
 * longer queued), and given back under the lock once the consumer is done, whatever the consumer
 * threw. A message channel, a broadcast subscriber and a bulk channel differ only in the three
 * steps. No allocation: each channel keeps one instance.
 *
 * @param <C> what consumes a slot (an {@link IntentConsumer}, a {@link BulkHandler})
 */
abstract class SlotDelivery<C> {
    private final PiMutex lock;

    SlotDelivery(PiMutex lock) { this.lock = lock; }

    /** Under the lock: dequeues the next slot to deliver; -1 when none is queued. */
    abstract int take();

    /** Outside the lock: {@code consumer} has {@code slot}, for the call only. */
    abstract void hand(int slot, C consumer);

    /** Under the lock: the consumer is done with {@code slot}. */
    abstract void giveBack(int slot);

    /** Delivers the next queued slot to {@code consumer}. @return false if none was queued */
    final boolean deliverOne(C consumer) {
        int slot;
        lock.lock();
        try {
            slot = take();
        } finally {
            lock.unlock();
        }
        if (slot < 0) {
            return false;
        }
        try {
            hand(slot, consumer);
        } finally {
            lock.lock();
            try {
                giveBack(slot);
            } finally {
                lock.unlock();
            }
        }
        return true;
    }

    /** The sender priority of {@code queue}'s next slot (-1 if none), read under the lock. */
    final int headPriority(SlotQueue queue) {
        lock.lock();
        try {
            return queue.headPriority();
        } finally {
            lock.unlock();
        }
    }

    /** The arrival sequence of {@code queue}'s next slot (Long.MAX_VALUE if none), read under the lock. */
    final long headSeq(SlotQueue queue) {
        lock.lock();
        try {
            return queue.headSeq();
        } finally {
            lock.unlock();
        }
    }
}
