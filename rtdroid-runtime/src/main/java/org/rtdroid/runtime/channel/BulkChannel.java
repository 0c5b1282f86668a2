package org.rtdroid.runtime.channel;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;
import org.rtdroid.runtime.manifest.DropPolicy;
import org.rtdroid.runtime.memory.TransferScope;

/**
 * A bulk data channel (dissertation 4.3.3): one sender, one receiver, a pool of pre-allocated
 * off-heap transfer scopes of the declared data size. Sending moves ownership of a scope from the
 * sender to the channel and then to the receiver; nothing is copied, so latency does not grow with
 * the payload. The sender may touch the scope only inside its {@link BulkClosure}.
 *
 * <p>When every scope is queued, drop policy {@code oldest} (the default for bulk) reclaims the
 * oldest queued scope (never one being received) and tells the sender; {@code newest} refuses.
 */
public final class BulkChannel {
    private final String name;
    private final DropPolicy drop;
    private final TransferScope[] scopes;
    private final int[] free;
    private int freeCount;
    private final int[] fifo;
    private int head;
    private int count;
    private final Object lock = new Object();
    private volatile Thread consumer;
    private ChannelSender lastSender;
    private long sentCount;
    private long deliveredCount;
    private long reclaimedCount;
    private long droppedCount;

    /** @param region capacity × dataSizeBytes of pre-allocated memory, split into the scopes */
    public BulkChannel(String name, int capacity, long dataSizeBytes, DropPolicy drop, MemorySegment region) {
        if (region.byteSize() < capacity * dataSizeBytes) {
            throw new IllegalArgumentException("region too small for " + capacity + " x " + dataSizeBytes + " B");
        }
        this.name = name;
        this.drop = drop;
        scopes = new TransferScope[capacity];
        free = new int[capacity];
        fifo = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            scopes[i] = new TransferScope(name, i, region.asSlice(i * dataSizeBytes, dataSizeBytes));
            free[i] = i;
        }
        freeCount = capacity;
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
        synchronized (lock) {
            sender.throwIfStolen();
            if (freeCount > 0) {
                slot = free[--freeCount];
            } else if (drop != DropPolicy.NEWEST && count > 0) {
                slot = fifo[head];
                head = (head + 1) % fifo.length;
                count--;
                scopes[slot].reclaim();
                reclaimedCount++;
                sender.markStolen();
            } else {
                droppedCount++;
                sender.countRefused();
                return ChannelSender.DROPPED_FULL;
            }
        }
        TransferScope s = scopes[slot];
        s.grantToSender(Thread.currentThread());
        try {
            closure.genMsg(s);
        } catch (RuntimeException | Error e) {
            s.reclaim();
            synchronized (lock) {
                free[freeCount++] = slot;
            }
            throw e;
        }
        s.relinquish();
        synchronized (lock) {
            fifo[(head + count) % fifo.length] = slot;
            count++;
            sentCount++;
            lastSender = sender;
            sender.countSent();
        }
        Thread c = consumer;
        if (c != null) {
            LockSupport.unpark(c);
        }
        return ChannelSender.SENT;
    }

    /**
     * Hands the oldest queued scope to the calling thread for {@code handler}, then reclaims it.
     *
     * @return false if nothing was queued
     */
    public boolean receive(BulkHandler handler) {
        int slot;
        synchronized (lock) {
            if (count == 0) {
                return false;
            }
            slot = fifo[head];
            head = (head + 1) % fifo.length;
            count--;
        }
        TransferScope s = scopes[slot];
        s.grantToReceiver(Thread.currentThread());
        try {
            handler.onBulk(s);
        } finally {
            s.reclaim();
            synchronized (lock) {
                free[freeCount++] = slot;
                deliveredCount++;
            }
        }
        return true;
    }

    public int size() { synchronized (lock) { return count; } }
    public long sentCount() { synchronized (lock) { return sentCount; } }
    public long deliveredCount() { synchronized (lock) { return deliveredCount; } }
    /** Queued scopes reclaimed (dropped) because the sender outran the receiver. */
    public long reclaimedCount() { synchronized (lock) { return reclaimedCount; } }
    public long droppedCount() { synchronized (lock) { return droppedCount; } }
}
