package org.rtdroid.runtime.channel;

import org.rtdroid.runtime.manifest.DropPolicy;
import org.rtdroid.runtime.os.PiMutex;

/**
 * A real-time broadcast (intent) channel (dissertation 4.3.2): N declared subscribers, a pool of
 * pre-allocated intents. One stored intent per broadcast carries a recipient count; each
 * subscriber has its own priority-ordered queue of references to stored intents, and the last
 * recipient to finish returns the intent to the pool. When the pool is exhausted, the drop policy
 * may reclaim an intent that no subscriber has started on yet.
 *
 * <p>Locking: one {@link PiMutex} (priority inheritance) for the channel and all its subscribers.
 */
public final class BroadcastChannel {
    private final String name;
    private final DropPolicy drop;
    private final boolean fifo;
    private final RealtimeIntent[] pool;
    private final SlotPool slots;
    private final SlotPool.Reclaimer reclaimer = this::reclaimFor;
    private final int[] remaining;
    private final int[] started;
    private final Subscriber[] subscribers;
    private final PiMutex lock;
    private long broadcastCount;

    public BroadcastChannel(String name, int capacity, int dataSizeBytes, int subscriberCount, DropPolicy drop,
                            boolean fifo) {
        if (capacity < 1 || subscriberCount < 1) {
            throw new IllegalArgumentException("capacity and subscriber count must be at least 1");
        }
        this.name = name;
        this.drop = drop;
        this.fifo = fifo;
        slots = new SlotPool(capacity);
        pool = new RealtimeIntent[capacity];
        remaining = new int[capacity];
        started = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            pool[i] = new RealtimeIntent(name, dataSizeBytes);
        }
        lock = new PiMutex("broadcast channel '" + name + "'");
        subscribers = new Subscriber[subscriberCount];
        for (int i = 0; i < subscriberCount; i++) {
            subscribers[i] = new Subscriber(capacity);
        }
    }

    public String channelName() { return name; }
    public int subscriberCount() { return subscribers.length; }
    public int capacity() { return pool.length; }

    /** The inbound view of subscriber {@code index} (0..N-1), as the runtime assigned them. */
    public InboundSource subscriber(int index) { return subscribers[index]; }

    /**
     * Stores one intent filled by {@code closure} and queues it for every subscriber at the
     * sender's priority.
     *
     * @return {@link ChannelSender#SENT} or {@link ChannelSender#DROPPED_FULL}
     */
    public int broadcast(ChannelSender sender, MessageClosure closure) {
        int priority = fifo ? 0 : sender.priority();
        lock.lock();
        try {
            int slot = slots.takeFilled(sender, priority, reclaimer, pool, closure);
            if (slot < 0) {
                return ChannelSender.DROPPED_FULL;
            }
            remaining[slot] = subscribers.length;
            started[slot] = 0;
            long seq = Sequence.next();
            for (Subscriber s : subscribers) {
                s.queue.insert(slot, priority, seq);
            }
            broadcastCount++;
        } finally {
            lock.unlock();
        }
        for (Subscriber s : subscribers) {
            SlotPool.wake(s.consumer);
        }
        return ChannelSender.SENT;
    }

    /** Under lock: an intent no subscriber has started on, chosen by the drop policy; -1 to refuse. */
    private int reclaimFor(int priority) {
        if (drop == DropPolicy.NEWEST) {
            return -1;
        }
        int best = -1;
        int bestPrio = Integer.MAX_VALUE;
        long bestSeq = Long.MAX_VALUE;
        // Candidates: intents still queued for every subscriber (nobody started): look at subscriber 0's queue.
        SlotQueue q = subscribers[0].queue;
        for (int pos = 0; pos < q.size(); pos++) {
            int slot = q.slotAt(pos);
            if (started[slot] != 0) {
                continue;
            }
            int p = q.priorityAt(pos);
            long seq = subscribers[0].seqOf(pos);
            boolean better = drop == DropPolicy.OLDEST
                    ? seq < bestSeq
                    : (p < bestPrio || (p == bestPrio && seq < bestSeq));
            if (better) {
                best = slot;
                bestPrio = p;
                bestSeq = seq;
            }
        }
        if (best < 0 || (drop == DropPolicy.PRIORITY_OLDEST && bestPrio >= priority)) {
            return -1;
        }
        for (Subscriber s : subscribers) {
            s.queue.removeSlot(best);
        }
        slots.stolen(best);
        return best;
    }

    public long broadcastCount() { lock.lock(); try { return broadcastCount; } finally { lock.unlock(); } }
    public long stolenCount() { lock.lock(); try { return slots.stolenCount(); } finally { lock.unlock(); } }
    public long droppedCount() { lock.lock(); try { return slots.droppedCount(); } finally { lock.unlock(); } }

    /** One subscriber's priority queue of references to stored intents. */
    private final class Subscriber implements InboundSource {
        final SlotQueue queue;
        volatile Thread consumer;
        private final SlotDelivery<IntentConsumer> delivery = new SlotDelivery<>(lock) {
            @Override
            int take() {
                if (queue.isEmpty()) {
                    return -1;
                }
                int slot = queue.pollHead();
                started[slot]++;
                return slot;
            }

            @Override
            void hand(int slot, IntentConsumer c) { c.onIntent(pool[slot]); }

            @Override
            void giveBack(int slot) {
                if (--remaining[slot] == 0) {
                    slots.release(slot);
                }
            }
        };

        Subscriber(int capacity) { queue = new SlotQueue(capacity); }

        long seqOf(int pos) { return queue.seqAt(pos); }

        @Override
        public String channelName() { return name; }

        @Override
        public void setConsumerThread(Thread t) { consumer = t; }

        @Override
        public int headPriority() { return delivery.headPriority(queue); }

        @Override
        public long headSeq() { return delivery.headSeq(queue); }

        @Override
        public boolean deliverOne(IntentConsumer c) { return delivery.deliverOne(c); }
    }
}
