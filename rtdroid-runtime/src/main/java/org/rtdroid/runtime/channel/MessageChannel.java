package org.rtdroid.runtime.channel;

import org.rtdroid.runtime.manifest.DropPolicy;
import org.rtdroid.runtime.os.PiMutex;

/**
 * A real-time message channel (dissertation 4.3.1): one consumer, a pool of pre-allocated
 * fixed-size messages, queued by sender priority. Senders populate a message through
 * {@link MessageClosure#genMsg} inside {@link #send}, so they never hold one. When the pool is
 * exhausted the drop policy decides: with {@code priority&oldest} a sender of higher priority
 * steals the slot of the lowest-priority (oldest among equals) queued message and that message's
 * sender is told by its pre-allocated {@link MessageStolenException}; otherwise the newcomer is
 * refused ({@link ChannelSender#DROPPED_FULL}). Messages being delivered are never stolen.
 *
 * <p>Locking: a short section per operation under a {@link PiMutex} (a priority-inheritance
 * pthread mutex): a high-priority sender or receiver blocked on it boosts whoever holds it, so a
 * middle-priority thread cannot prolong the wait. No allocation.
 */
public final class MessageChannel implements InboundSource {
    private final String name;
    private final DropPolicy drop;
    private final boolean fifo;
    private final RealtimeIntent[] pool;
    private final SlotPool slots;
    private final SlotPool.Reclaimer reclaimer = this::reclaimFor;
    private final SlotQueue queue;
    private final PiMutex lock;
    private final SlotDelivery<IntentConsumer> delivery;
    private volatile Thread consumer;
    private long sentCount;
    private long deliveredCount;

    /**
     * @param fifo true for {@code <order>fifo</order>}: every message queued at the same priority
     */
    public MessageChannel(String name, int capacity, int dataSizeBytes, DropPolicy drop, boolean fifo) {
        this.slots = new SlotPool(capacity);
        this.name = name;
        this.drop = drop;
        this.fifo = fifo;
        this.pool = new RealtimeIntent[capacity];
        for (int i = 0; i < capacity; i++) {
            pool[i] = new RealtimeIntent(name, dataSizeBytes);
        }
        this.queue = new SlotQueue(capacity);
        this.lock = new PiMutex("message channel '" + name + "'");
        this.delivery = new SlotDelivery<>(lock) {
            @Override
            int take() {
                if (queue.isEmpty()) {
                    return -1;
                }
                int slot = queue.pollHead();
                slots.dequeued(slot);
                return slot;
            }

            @Override
            void hand(int slot, IntentConsumer c) { c.onIntent(pool[slot]); }

            @Override
            void giveBack(int slot) {
                slots.release(slot);
                deliveredCount++;
            }
        };
    }

    @Override
    public String channelName() { return name; }
    public int capacity() { return pool.length; }
    public int dataSizeBytes() { return pool[0].payloadCapacity(); }

    @Override
    public void setConsumerThread(Thread t) { consumer = t; }

    /**
     * Takes a pre-allocated message (stealing per the drop policy if the pool is empty), lets the
     * closure fill it, stamps the sender and queues it at the sender's priority.
     *
     * @return {@link ChannelSender#SENT} or {@link ChannelSender#DROPPED_FULL}
     * @throws MessageStolenException (pre-allocated) if one of this sender's earlier messages was
     *     stolen since its last send; nothing is queued then
     */
    public int send(ChannelSender sender, MessageClosure closure) {
        int priority = fifo ? 0 : sender.priority();
        lock.lock();
        try {
            int slot = slots.takeFilled(sender, priority, reclaimer, pool, closure);
            if (slot < 0) {
                return ChannelSender.DROPPED_FULL;
            }
            queue.insert(slot, priority, Sequence.next());
            sentCount++;
        } finally {
            lock.unlock();
        }
        SlotPool.wake(consumer);
        return ChannelSender.SENT;
    }

    /** Under lock: frees a queued slot per the drop policy for a sender at {@code priority}; -1 to refuse. */
    private int reclaimFor(int priority) {
        int pos;
        switch (drop) {
            case PRIORITY_OLDEST -> {
                pos = queue.lowestOldestPosition();
                if (pos < 0 || queue.priorityAt(pos) >= priority) {
                    return -1;
                }
            }
            case OLDEST -> pos = queue.oldestPosition();
            default -> {
                return -1;
            }
        }
        if (pos < 0) {
            return -1;
        }
        int slot = queue.removeAt(pos);
        slots.stolen(slot);
        return slot;
    }

    @Override
    public int headPriority() { return delivery.headPriority(queue); }

    @Override
    public long headSeq() { return delivery.headSeq(queue); }

    /**
     * Zero-copy receive: hands the highest-priority message to {@code consumer} (valid during the
     * call only; it cannot be stolen meanwhile), then returns it to the pool.
     */
    @Override
    public boolean deliverOne(IntentConsumer consumer) { return delivery.deliverOne(consumer); }

    /** Copying receive (for polling consumers, e.g. a periodic task): @return false if empty */
    public boolean receive(RealtimeIntent into) {
        lock.lock();
        try {
            if (queue.isEmpty()) {
                return false;
            }
            int slot = queue.pollHead();
            into.copyFrom(pool[slot]);
            slots.release(slot);
            deliveredCount++;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Messages queued now. */
    public int size() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    public long sentCount() { lock.lock(); try { return sentCount; } finally { lock.unlock(); } }
    public long deliveredCount() { lock.lock(); try { return deliveredCount; } finally { lock.unlock(); } }
    /** Queued messages reclaimed for another sender (stolen). */
    public long stolenCount() { lock.lock(); try { return slots.stolenCount(); } finally { lock.unlock(); } }
    /** Messages refused because the channel was full. */
    public long droppedCount() { lock.lock(); try { return slots.droppedCount(); } finally { lock.unlock(); } }
}
