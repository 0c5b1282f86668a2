package org.rtdroid.runtime.channel;

import java.lang.foreign.MemorySegment;
import org.rtdroid.runtime.manifest.DropPolicy;
import org.rtdroid.runtime.memory.TransferScope;
import org.rtdroid.runtime.os.PiMutex;

/**
 * A bulk data channel (dissertation 4.3.3): one sender, one receiver, a pool of pre-allocated
 * off-heap transfer scopes of the declared data size. Sending moves ownership of a scope from the
 * sender to the channel and then to the receiver; nothing is copied, so latency does not grow with
 * the payload. The sender may touch the scope only inside its {@link BulkClosure}.
 *
 * <p>When every scope is queued, drop policy {@code oldest} (the default for bulk) reclaims the
 * oldest queued scope (never one being received) and tells the sender; {@code newest} refuses.
 *
 * <p>Locking: the queue bookkeeping (never the payload) is guarded by a {@link PiMutex}.
 */
public final class BulkChannel {
    private final String name;
    private final DropPolicy drop;
    private final TransferScope[] scopes;
    private final SlotPool slots;
    private final SlotPool.Reclaimer reclaimer = this::reclaimOldest;
    private final int[] fifo;
    private int head;
    private int count;
    private final PiMutex lock;
    private final SlotDelivery<BulkHandler> delivery;
    private volatile Thread consumer;
    private long sentCount;
    private long deliveredCount;

    /** @param region capacity × dataSizeBytes of pre-allocated memory, split into the scopes */
    public BulkChannel(String name, int capacity, long dataSizeBytes, DropPolicy drop, MemorySegment region) {
        if (region.byteSize() < capacity * dataSizeBytes) {
            throw new IllegalArgumentException("region too small for " + capacity + " x " + dataSizeBytes + " B");
        }
        this.name = name;
        this.drop = drop;
        slots = new SlotPool(capacity);
        scopes = new TransferScope[capacity];
        fifo = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            scopes[i] = new TransferScope(name, i, region.asSlice(i * dataSizeBytes, dataSizeBytes));
        }
        lock = new PiMutex("bulk channel '" + name + "'");
        delivery = new SlotDelivery<>(lock) {
            @Override
            int take() {
                if (count == 0) {
                    return -1;
                }
                int slot = fifo[head];
                head = (head + 1) % fifo.length;
                count--;
                slots.dequeued(slot);
                return slot;
            }

            @Override
            void hand(int slot, BulkHandler handler) {
                TransferScope s = scopes[slot];
                s.grantToReceiver(Thread.currentThread());
                try {
                    handler.onBulk(s);
                } finally {
                    s.reclaim();
                }
            }

            @Override
            void giveBack(int slot) {
                slots.release(slot);
                deliveredCount++;
            }
        };
    }

    public String channelName() { return name; }
    public int capacity() { return scopes.length; }

    public void setConsumerThread(Thread t) { consumer = t; }

    /**
     * Grants a transfer scope to the calling thread for {@code closure} to fill, then moves it to
     * the receiver's queue.
     *
     * @return {@link ChannelSender#SENT} or {@link ChannelSender#DROPPED_FULL}
     */
    public int send(ChannelSender sender, BulkClosure closure) {
        int slot;
        lock.lock();
        try {
            slot = slots.take(sender, 0, reclaimer);
            if (slot < 0) {
                return ChannelSender.DROPPED_FULL;
            }
        } finally {
            lock.unlock();
        }
        TransferScope s = scopes[slot];
        s.grantToSender(Thread.currentThread());
        try {
            closure.genMsg(s);
        } catch (RuntimeException | Error e) {
            s.reclaim();
            lock.lock();
            try {
                slots.release(slot);
            } finally {
                lock.unlock();
            }
            throw e;
        }
        s.relinquish();
        lock.lock();
        try {
            fifo[(head + count) % fifo.length] = slot;
            count++;
            sentCount++;
            slots.queued(slot, sender);
        } finally {
            lock.unlock();
        }
        SlotPool.wake(consumer);
        return ChannelSender.SENT;
    }

    /** Under lock: the drop policy for a full channel: the oldest queued scope, unless {@code newest}. */
    private int reclaimOldest(int unusedPriority) {
        if (drop == DropPolicy.NEWEST || count == 0) {
            return -1;
        }
        int slot = fifo[head];
        head = (head + 1) % fifo.length;
        count--;
        scopes[slot].reclaim();
        slots.stolen(slot);
        return slot;
    }

    /**
     * Hands the oldest queued scope to the calling thread for {@code handler}, then reclaims it.
     *
     * @return false if nothing was queued
     */
    public boolean receive(BulkHandler handler) { return delivery.deliverOne(handler); }

    public int size() { lock.lock(); try { return count; } finally { lock.unlock(); } }
    public long sentCount() { lock.lock(); try { return sentCount; } finally { lock.unlock(); } }
    public long deliveredCount() { lock.lock(); try { return deliveredCount; } finally { lock.unlock(); } }
    /** Queued scopes reclaimed (dropped) because the sender outran the receiver. */
    public long reclaimedCount() { lock.lock(); try { return slots.stolenCount(); } finally { lock.unlock(); } }
    public long droppedCount() { lock.lock(); try { return slots.droppedCount(); } finally { lock.unlock(); } }
}
