package org.rtdroid.runtime.channel;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;
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
    private final int[] free;
    private int freeCount;
    private final int[] fifo;
    private int head;
    private int count;
    private final PiMutex lock;
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
        lock = new PiMutex("bulk channel '" + name + "'");
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
                free[freeCount++] = slot;
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
            lastSender = sender;
            sender.countSent();
        } finally {
            lock.unlock();
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
        lock.lock();
        try {
            if (count == 0) {
                return false;
            }
            slot = fifo[head];
            head = (head + 1) % fifo.length;
            count--;
        } finally {
            lock.unlock();
        }
        TransferScope s = scopes[slot];
        s.grantToReceiver(Thread.currentThread());
        try {
            handler.onBulk(s);
        } finally {
            s.reclaim();
            lock.lock();
            try {
                free[freeCount++] = slot;
                deliveredCount++;
            } finally {
                lock.unlock();
            }
        }
        return true;
    }

    public int size() { lock.lock(); try { return count; } finally { lock.unlock(); } }
    public long sentCount() { lock.lock(); try { return sentCount; } finally { lock.unlock(); } }
    public long deliveredCount() { lock.lock(); try { return deliveredCount; } finally { lock.unlock(); } }
    /** Queued scopes reclaimed (dropped) because the sender outran the receiver. */
    public long reclaimedCount() { lock.lock(); try { return reclaimedCount; } finally { lock.unlock(); } }
    public long droppedCount() { lock.lock(); try { return droppedCount; } finally { lock.unlock(); } }
}
