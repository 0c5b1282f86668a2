package org.rtdroid.runtime.alarm;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.rtdroid.runtime.channel.IntentConsumer;
import org.rtdroid.runtime.event.HandlerDispatcher;
import org.rtdroid.runtime.event.HandlerStrategy;
import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.os.PartitionPins;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.os.PiCondition;
import org.rtdroid.runtime.os.PiMutex;
import org.rtdroid.runtime.os.RealtimePolicy;
import org.rtdroid.runtime.os.RealtimeThreads;

/**
 * The real-time AlarmManager (dissertation 3.6.2): Android's {@code set}, {@code setExact},
 * {@code setRepeating} and {@code cancel}, with real-time receivers as targets.
 *
 * <p><b>Registration.</b> Scheduled alarms live in one bounded binary heap ordered by trigger
 * time, then by sender priority (higher first), then by registration order; the dissertation's
 * red-black tree of timestamps with per-timestamp trees gives the same order, and a heap of
 * pre-allocated slots gives the same O(log n) bound without allocating. Its capacity is the
 * manifest's {@code <alarms capacity>}: one slot per {@link PendingIntent}, so registration can
 * never run out of room; setting a pending intent again replaces its alarm. An alarm whose
 * trigger time has passed when it is set is discarded (counted) rather than delivered late, and
 * that set has no other effect (the pending intent's scheduled alarm, if any, stays). The
 * heap is guarded by a {@link PiMutex}: the alarm thread waiting for a registering low-priority
 * thread boosts it, and waits for at most one O(log n) update. A low-priority thread that sets
 * alarms faster than they can be delivered cannot delay a high-priority alarm: at one instant the
 * high alarm comes out first, and its handler runs at its own priority.
 *
 * <p><b>Delivery.</b> One alarm thread, at the priority given (the cell's highest), sleeps on
 * CLOCK_MONOTONIC until the earliest trigger time, absolute ({@link PiCondition#awaitUntil}:
 * {@code pthread_cond_timedwait} on the same clock as {@code clock_nanosleep(TIMER_ABSTIME)}, but a
 * registration that moves the earliest trigger time forward can wake it). When an alarm is due it
 * fires the target's {@link org.rtdroid.runtime.event.AsyncEvent}; the target's handler runs the
 * receiver's callback at the receiver's priority, on a bound or pooled thread
 * ({@link HandlerStrategy}). A repeating alarm is rescheduled on its absolute grid
 * ({@code trigger + k * interval}); intervals that passed unseen are skipped and counted.
 *
 * <p>The delivered intent: action {@value #ACTION}, {@code what} = request code, sender priority
 * from the pending intent, {@code sendNanos()} = trigger time; payload: trigger time at
 * {@link #TRIGGER_NANOS_OFFSET}, the time the alarm thread fired it at {@link #FIRE_NANOS_OFFSET}
 * (CLOCK_MONOTONIC nanoseconds). Nothing on set, cancel, fire or delivery allocates.
 *
 * <p>On a partitioned cell the alarm thread is pinned to the CPU the partition gives it, before
 * its first fire ({@link #start} fails when the kernel refuses), and each receiver's handler to the
 * receiver's CPU.
 */
public final class AlarmManager {
    public static final String ACTION = "rtdroid.alarm";
    public static final int TRIGGER_NANOS_OFFSET = 0;
    public static final int FIRE_NANOS_OFFSET = 8;
    public static final int PAYLOAD_BYTES = 16;

    private final String name;
    private final int capacity;
    private final int alarmPriority;
    private final IntFunction<RealtimePolicy> policyFor;
    private final CpuSet alarmThreadCpu;
    private final Function<String, CpuSet> cpuOfReceiver;
    private final PartitionPins pins;
    private volatile int tid;
    private final HandlerDispatcher dispatcher;
    private final PiMutex lock;
    private final PiCondition wake;
    private final PendingIntent[] heap;
    private int size;
    private long nextSeq;
    private final List<PendingIntent> pendingIntents = new ArrayList<>();
    private final Map<String, AlarmTarget> targets = new HashMap<>();
    private final Map<String, Receiver> receivers = new HashMap<>();
    private volatile boolean running = true;
    private volatile Thread thread;
    private volatile long fired;
    private volatile long expired;
    private volatile long coalesced;
    private volatile long skippedIntervals;

    private record Receiver(int priority, IntentConsumer callback) {}

    /**
     * @param capacity alarms that may be scheduled at once (= pending intents that may exist)
     * @param strategy how the receivers' handlers get threads
     * @param poolSize pool threads of the pooled strategy
     * @param alarmPriority priority of the alarm thread (the cell's highest)
     * @param policyFor scheduling policy of a thread at a priority; null: everything SCHED_OTHER
     */
    public AlarmManager(String name, int capacity, HandlerStrategy strategy, int poolSize, int alarmPriority,
                        IntFunction<RealtimePolicy> policyFor) {
        this(name, capacity, strategy, poolSize, alarmPriority, policyFor, null, receiver -> null);
    }

    /**
     * @param alarmThreadCpu the CPU the alarm thread is pinned to, or null (not partitioned)
     * @param cpuOfReceiver the CPU a receiver's (class name) handler is pinned to, or null
     */
    public AlarmManager(String name, int capacity, HandlerStrategy strategy, int poolSize, int alarmPriority,
                        IntFunction<RealtimePolicy> policyFor, CpuSet alarmThreadCpu,
                        Function<String, CpuSet> cpuOfReceiver) {
        this.alarmThreadCpu = alarmThreadCpu;
        this.cpuOfReceiver = cpuOfReceiver;
        if (capacity < 1) {
            throw new IllegalArgumentException("alarm manager '" + name + "': capacity must be at least 1");
        }
        this.name = name;
        this.capacity = capacity;
        this.alarmPriority = alarmPriority;
        this.policyFor = policyFor;
        this.dispatcher = HandlerDispatcher.create(name + "/alarm", strategy, poolSize, capacity, policyFor);
        this.lock = new PiMutex(name + ".alarms");
        this.wake = lock.newCondition();
        this.heap = new PendingIntent[capacity];
        this.pins = new PartitionPins("alarm manager '" + name + "'", 1);
    }

    // ------------------------------------------------------------------ set-up

    /** Set-up: makes a receiver known under {@code className} (the bootstrap declares the app's receivers). */
    public synchronized void declareReceiver(String className, int priority, IntentConsumer callback) {
        receivers.put(className, new Receiver(priority, callback));
    }

    /**
     * Set-up (allocates): the pending intent that delivers request code {@code requestCode} to the
     * receiver declared as {@code receiverClass}, ordered at one instant by {@code senderPriority}.
     * The same arguments return the same pending intent, as Android's {@code getBroadcast} does.
     *
     * @throws IllegalArgumentException no such receiver
     * @throws IllegalStateException all {@code capacity} pending intents exist already
     */
    public synchronized PendingIntent getBroadcast(String receiverClass, int requestCode, int senderPriority) {
        Receiver r = receivers.get(receiverClass);
        if (r == null) {
            throw new IllegalArgumentException("alarm manager '" + name + "': no receiver '" + receiverClass
                    + "' can be an alarm target (it must be a <receiver> of this application that subscribes to no channel)");
        }
        for (PendingIntent p : pendingIntents) {
            if (p.target.name().equals(receiverClass) && p.requestCode == requestCode && p.senderPriority == senderPriority) {
                return p;
            }
        }
        if (pendingIntents.size() == capacity) {
            throw new IllegalStateException("alarm manager '" + name + "': all " + capacity
                    + " alarms of <alarms capacity> are in use");
        }
        AlarmTarget t = targets.get(receiverClass);
        if (t == null) {
            t = new AlarmTarget(receiverClass, r.priority(), r.callback(), capacity);
            t.handler().pinTo(cpuOfReceiver.apply(receiverClass));
            dispatcher.attach(t.handler());
            t.event().addHandler(t.handler());
            targets.put(receiverClass, t);
        }
        PendingIntent p = new PendingIntent(this, t, requestCode, senderPriority);
        pendingIntents.add(p);
        return p;
    }

    /** The kernel thread id of the alarm thread (0 before {@link #start}). */
    public int tid() { return tid; }

    /**
     * Starts the alarm thread and waits until it has its policy and CPU.
     *
     * @throws IllegalStateException when the kernel refuses to pin it to its CPU (the errno says
     *     why; the thread has ended without firing anything)
     */
    public synchronized void start() {
        if (thread != null) {
            throw new IllegalStateException("alarm manager '" + name + "' already started");
        }
        Thread t = Thread.ofPlatform().name(name + "/alarms").daemon(true).unstarted(this::alarmLoop);
        thread = t;
        t.start();
        pins.await();
    }

    /** Stops the alarm thread and the handlers' threads; scheduled alarms are dropped. */
    public void stop() throws InterruptedException {
        running = false;
        lock.lock();
        try {
            wake.signal();
        } finally {
            lock.unlock();
        }
        Thread t = thread;
        if (t != null) {
            t.join(2_000);
        }
        dispatcher.stop();
    }

    // ------------------------------------------------------------------ Android's API

    /** Like Android's {@code set}: here every alarm is exact. See {@link #setExact}. */
    public boolean set(long triggerAtNanos, PendingIntent operation) {
        return schedule(triggerAtNanos, 0, operation);
    }

    /**
     * Schedules {@code operation} at {@code triggerAtNanos} (CLOCK_MONOTONIC, as
     * {@link Linux#monotonicNanos}), replacing its previous alarm if any.
     *
     * @return false if the trigger time has already passed: the alarm is discarded (counted) and
     *     an alarm already scheduled for {@code operation} stays as it was
     */
    public boolean setExact(long triggerAtNanos, PendingIntent operation) {
        return schedule(triggerAtNanos, 0, operation);
    }

    /**
     * Schedules {@code operation} at {@code triggerAtNanos} and then every {@code intervalNanos}
     * after it, on that absolute grid, until cancelled.
     *
     * @return false if the first trigger time has already passed (discarded, counted)
     */
    public boolean setRepeating(long triggerAtNanos, long intervalNanos, PendingIntent operation) {
        if (intervalNanos <= 0) {
            throw new IllegalArgumentException("repeating interval must be positive, was " + intervalNanos + " ns");
        }
        return schedule(triggerAtNanos, intervalNanos, operation);
    }

    /** Removes the alarm of {@code operation}. @return whether one was scheduled */
    public boolean cancel(PendingIntent operation) {
        lock.lock();
        try {
            if (operation.heapIndex < 0) {
                return false;
            }
            removeAt(operation.heapIndex);
            return true;
        } finally {
            lock.unlock();
        }
    }

    private boolean schedule(long triggerAtNanos, long intervalNanos, PendingIntent p) {
        if (p.owner != this) {
            throw new IllegalArgumentException("pending intent of another alarm manager");
        }
        lock.lock();
        try {
            // A discarded set changes nothing: the alarm already scheduled for p (which may be due
            // and about to fire) stays; only an accepted set replaces it.
            if (triggerAtNanos < Linux.monotonicNanos()) {
                expired++;
                return false;
            }
            if (p.heapIndex >= 0) {
                removeAt(p.heapIndex);
            }
            p.triggerNanos = triggerAtNanos;
            p.intervalNanos = intervalNanos;
            insert(p);
            if (p.heapIndex == 0) {
                wake.signal(); // the earliest trigger time moved forward
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ the alarm thread

    private void alarmLoop() {
        RealtimePolicy policy = policyFor == null ? null : policyFor.apply(alarmPriority);
        if (policy != null) {
            RealtimeThreads.applyToCurrentThread(policy);
        }
        tid = Linux.gettid();
        if (!pins.pinCurrentThread("the alarm thread", alarmThreadCpu)) {
            return;
        }
        lock.lock();
        try {
            while (running) {
                if (size == 0) {
                    wake.await();
                    continue;
                }
                PendingIntent top = heap[0];
                long trigger = top.triggerNanos;
                long now = Linux.monotonicNanos();
                if (trigger > now) {
                    wake.awaitUntil(trigger);
                    continue;
                }
                removeAt(0);
                if (top.intervalNanos > 0) {
                    long periods = (now - trigger) / top.intervalNanos + 1;
                    skippedIntervals += periods - 1;
                    top.triggerNanos = trigger + periods * top.intervalNanos;
                    insert(top);
                }
                // Deliver outside the lock: registrations go on while the event fires.
                lock.unlock();
                try {
                    if (top.target.fire(top, trigger, Linux.monotonicNanos())) {
                        fired++;
                    } else {
                        coalesced++;
                    }
                } finally {
                    lock.lock();
                }
            }
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ the heap

    /** Earlier trigger first; at one instant higher sender priority first; then registration order. */
    private static boolean before(PendingIntent a, PendingIntent b) {
        if (a.triggerNanos != b.triggerNanos) {
            return a.triggerNanos < b.triggerNanos;
        }
        if (a.senderPriority != b.senderPriority) {
            return a.senderPriority > b.senderPriority;
        }
        return a.seq < b.seq;
    }

    private void insert(PendingIntent p) {
        p.seq = nextSeq++;
        int i = size++;
        heap[i] = p;
        p.heapIndex = i;
        siftUp(i);
    }

    private void removeAt(int i) {
        PendingIntent gone = heap[i];
        int last = --size;
        if (i != last) {
            PendingIntent moved = heap[last];
            heap[last] = null;
            heap[i] = moved;
            moved.heapIndex = i;
            siftDown(i);
            if (moved.heapIndex == i) {
                siftUp(i);
            }
        } else {
            heap[last] = null;
        }
        gone.heapIndex = -1;
    }

    private void siftUp(int i) {
        PendingIntent p = heap[i];
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (!before(p, heap[parent])) {
                break;
            }
            heap[i] = heap[parent];
            heap[i].heapIndex = i;
            i = parent;
        }
        heap[i] = p;
        p.heapIndex = i;
    }

    private void siftDown(int i) {
        PendingIntent p = heap[i];
        while (true) {
            int child = 2 * i + 1;
            if (child >= size) {
                break;
            }
            if (child + 1 < size && before(heap[child + 1], heap[child])) {
                child++;
            }
            if (!before(heap[child], p)) {
                break;
            }
            heap[i] = heap[child];
            heap[i].heapIndex = i;
            i = child;
        }
        heap[i] = p;
        p.heapIndex = i;
    }

    // ------------------------------------------------------------------ reports

    public String name() { return name; }

    public int capacity() { return capacity; }

    public HandlerDispatcher dispatcher() { return dispatcher; }

    /** Alarms scheduled now. */
    public int scheduled() {
        lock.lock();
        try {
            return size;
        } finally {
            lock.unlock();
        }
    }

    /** Alarms the alarm thread fired (events released). */
    public long fired() { return fired; }

    /** Alarms discarded because their trigger time had passed when they were set. */
    public long expired() { return expired; }

    /** Alarms that came due while the previous one of the same pending intent was still undelivered. */
    public long coalesced() { return coalesced; }

    /** Intervals of repeating alarms that passed before the alarm thread could fire them. */
    public long skippedIntervals() { return skippedIntervals; }

    /** Alarms delivered to receivers (callbacks run). */
    public synchronized long delivered() {
        long n = 0;
        for (AlarmTarget t : targets.values()) {
            n += t.delivered();
        }
        return n;
    }

    /** The alarm thread (null before {@link #start}). */
    public Thread thread() { return thread; }
}
