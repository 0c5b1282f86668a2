package org.rtdroid.android.cell.broadcast;

import org.rtdroid.android.cell.os.CellLog;
import org.rtdroid.android.cell.os.RealtimeScheduling;
import org.rtdroid.android.cell.pm.AppBundle;
import org.rtdroid.android.cell.pm.AppCrashes;
import org.rtdroid.android.cell.pm.Apps;
import org.rtdroid.android.cell.pm.CellPackageManager;
import org.rtdroid.android.cell.pm.InstalledApp;
import org.rtdroid.android.cell.pm.IntentResolver;

import static org.robolectric.Shadows.shadowOf;

import android.app.Application;
import android.content.BroadcastReceiver;
import android.content.ComponentName;
import android.content.Context;
import android.content.Intent;
import android.content.IntentFilter;
import android.os.Handler;
import android.os.Looper;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.robolectric.shadows.ShadowApplication;
import org.rtdroid.android.proxy.ProxyContract;
import org.rtdroid.json.JsonWriter;

/**
 * The cell's broadcast queue: the one place where the order of broadcast delivery is decided
 * (Kalkov et al., seed 001: priority-ordered instead of FIFO).
 *
 * <p>A broadcast is queued at its sender's priority: the int extra
 * {@link ProxyContract#EXTRA_SENDER_PRIORITY} (0..99, the RT cell's scale; absent = 0), which the
 * proxy sets to the RT sender's priority for intents from the RT cell. Queued broadcasts are
 * delivered most urgent first, first come within a priority. Priorities at or above
 * {@link #RT_THRESHOLD} wait in the real-time lane, served by its own delivery thread
 * ({@code broadcast-rt}, which posts to the front of the main looper's queue); the others in the
 * normal lane ({@code broadcast}). Both lanes are bounded; when one is full the least urgent
 * broadcast in it (latest among equals, possibly the one just sent) is dropped and counted:
 * {@link #OVERFLOW_POLICY}. A dropped ordered broadcast still gets its result receiver, with
 * {@link ProxyContract#EXTRA_BROADCAST_DROPPED} set, so its sender learns of it.
 *
 * <p>The lanes and the delivery slot are a guarded critical section ({@link PriorityGuard}):
 * parallel senders, both delivery threads and the main looper take the guard in priority order.
 * One broadcast is delivered at a time, on the main looper (every app's receivers run there, as
 * in its process). When the slot is idle, a lane's delivery thread takes its most urgent
 * broadcast unless a more urgent one waits in the other lane; when a delivery ends, the main
 * looper itself takes the most urgent queued one. A high-priority broadcast therefore waits at
 * most for the one delivery already running (receivers are app code and are not preempted).
 *
 * <p>Real-time scheduling ({@link RealtimeScheduling}, when the cell may set it): the real-time
 * lane's delivery thread runs at SCHED_FIFO, and the main looper runs at SCHED_FIFO only inside
 * deliveries: a real-time broadcast's, and a normal one's that a real-time broadcast waits for
 * (lent by the real-time sender, or taken by the looper as it enters that delivery). It drops back to SCHED_OTHER as it leaves a delivery unless a
 * real-time broadcast is its very next message. So a receiver already running finishes, and the
 * real-time one runs, ahead of the cell's ordinary threads (the low-priority senders among them),
 * while nothing else the looper runs (layout, app launches) ever runs at SCHED_FIFO.
 *
 * <p>What allocates where: the sender's thread copies the intent (Android's API hands the queue
 * a mutable one) into a {@link Pending}, which is also the message the main looper runs; the main
 * looper resolves each broadcast's receivers (a list of targets) and runs app code. The
 * real-time delivery thread's own work allocates nothing after warm-up: the lanes are fixed
 * arrays, the guard's waiter table is fixed and its bookkeeping lock a spin lock, and it posts the
 * Pending itself. The post is the framework's ({@code Handler.postAtFrontOfQueue}): on a device it
 * takes a pooled message and allocates nothing; in this cell Robolectric's MessageQueue shadow
 * allocates a few dozen bytes per post, which the thread counts apart
 * ({@link #realtimeHandoverBytes}). A broadcast reaches the runtime-registered receivers and the
 * manifest receivers (instantiated per broadcast, as on a device) whose filters match, in filter
 * priority order; an ordered broadcast's result receiver runs after the last one.
 */
public final class BroadcastQueue {
    static final String TAG = "BroadcastQueue";
    /** Per-thread allocation counters (allocation-free to read for the current thread). */
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    /** Sender priorities from here up are real-time: their own lane and delivery thread. */
    public static final int RT_THRESHOLD = 50;
    static final int MAX_SENDER_PRIORITY = 99;
    static final int RT_CAPACITY = 64;
    public static final int NORMAL_CAPACITY = 256;
    static final String OVERFLOW_POLICY = "DROP_LEAST_URGENT";
    /** Senders that may wait for the guard at once (threads; a fixed table, see PriorityGuard). */
    private static final int MAX_WAITING_SENDERS = 4096;

    /** The queueing discipline: the cell's, or stock Android's (the benchmark's baseline). */
    public enum Discipline {
        /** Most urgent first (higher sender priority, then earlier arrival), real-time lane. */
        PRIORITY((a, b) -> a.priority != b.priority
                ? Integer.compare(b.priority, a.priority) : Long.compare(a.arrival, b.arrival)),
        /** Stock Android: one lane, arrival order, the guard taken first come. */
        FIFO((a, b) -> Long.compare(a.arrival, b.arrival)),
        /**
         * Stock Android with {@link Intent#FLAG_RECEIVER_FOREGROUND} on the urgent intent (seed
         * 001's "original with foreground flag" baseline): AMS's foreground broadcast queue is
         * served before its background queue, arrival order within each; as in FIFO, no real-time
         * lane, thread or priority guard.
         */
        FOREGROUND((a, b) -> a.priority != b.priority
                ? Integer.compare(b.priority, a.priority) : Long.compare(a.arrival, b.arrival));

        final Comparator<Pending> order;

        Discipline(Comparator<Pending> order) {
            this.order = order;
        }
    }

    private final Application application;
    private final Handler main;
    private final CellPackageManager packages;
    private final AppCrashes crashes;
    private final Discipline discipline;
    private final PriorityGuard guard = new PriorityGuard(MAX_WAITING_SENDERS);
    private final Lane rt;
    private final Lane normal;
    // guarded by guard
    private long arrivals;
    private boolean delivering;
    /** rt.size + normal.size, written under the guard whenever either changes. */
    private volatile int queuedCount;
    /** The main looper runs at {@link RealtimeScheduling#LOOPER_PRIORITY}: a real-time broadcast waits for it or runs on it. */
    private boolean looperBoosted;
    /** The main looper is inside {@link #deliverAndContinue}: running a broadcast's receivers. */
    private boolean looperInDelivery;
    /**
     * The real-time senders' identity check ({@link #enforceRealtimeSender}, a stack walk): how
     * many passed, their total and their worst time, on the sender's path before it queues. The
     * cell's state shows them; the broadcast benchmark reports the check apart from the queue.
     */
    private final AtomicLong senderChecks = new AtomicLong();
    private final AtomicLong senderCheckNanos = new AtomicLong();
    private final AtomicLong senderCheckWorstNanos = new AtomicLong();
    private volatile boolean running;
    /** The main looper's kernel thread id, recorded at its first delivery (0 before). */
    private volatile int looperTid;
    private volatile AppProcessReceivers appProcesses;
    /** The real-time lane's delivery thread's kernel thread id (0 before it runs). */
    private volatile int realtimeDeliveryTid;
    /** Whether the real-time path runs at SCHED_FIFO: -1 not started, 0 yes, else the errno that refused it. */
    private volatile int realtimeSchedulingErrno = -1;

    public BroadcastQueue(Application application, Handler main, CellPackageManager packages, AppCrashes crashes) {
        this(application, main, packages, crashes, Discipline.PRIORITY);
    }

    public BroadcastQueue(Application application, Handler main, CellPackageManager packages, AppCrashes crashes,
            Discipline discipline) {
        this.discipline = discipline;
        boolean fifo = discipline != Discipline.PRIORITY;
        this.rt = new Lane("rt", RT_CAPACITY, fifo ? 0 : MAX_SENDER_PRIORITY + 1, discipline.order);
        this.normal = new Lane("normal", NORMAL_CAPACITY, fifo ? 0 : RT_THRESHOLD - 1, discipline.order);
        this.application = application;
        this.main = main;
        this.packages = packages;
        this.crashes = crashes;
    }

    /**
     * Starts both delivery threads; under the priority discipline the real-time lane's at
     * SCHED_FIFO {@link RealtimeScheduling#DELIVERY_PRIORITY} when the cell may (stock Android's
     * discipline has no real-time thread).
     */
    public void start() {
        running = true;
        rt.start(Thread.MAX_PRIORITY, () -> {
            realtimeDeliveryTid = RealtimeScheduling.tid();
            if (discipline == Discipline.PRIORITY) {
                int errno = RealtimeScheduling.set(0, RealtimeScheduling.SCHED_FIFO, RealtimeScheduling.DELIVERY_PRIORITY);
                if (errno == RealtimeScheduling.OFF_BY_BOARD) {
                    CellLog.i(TAG, "real-time broadcasts are delivered at SCHED_OTHER: the board keeps the cell's threads there"
                            + " (realtime_threads: false)");
                } else if (errno != 0) {
                    CellLog.w(TAG, "SCHED_FIFO refused (errno " + errno + (errno == RealtimeScheduling.EPERM
                            ? ", EPERM: the cell lacks CAP_SYS_NICE" : "") + "): real-time broadcasts are delivered at SCHED_OTHER");
                }
                realtimeSchedulingErrno = errno;
            }
            deliveryLoop(rt, normal);
        });
        normal.start(Thread.NORM_PRIORITY, () -> deliveryLoop(normal, rt));
    }

    /** A receiver an app process registered at run time: its process's id for it, and its filter. */
    private record RemoteReceiver(InstalledApp app, long id, IntentFilter filter) {
    }

    private final java.util.List<RemoteReceiver> remoteReceivers = new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * A receiver registered at run time in an app process ({@code registerReceiver} over the IPC):
     * a matching broadcast goes to that process, with the process's id for the receiver.
     */
    public void registerRemote(InstalledApp app, long id, IntentFilter filter) {
        unregisterRemote(app, id);
        remoteReceivers.add(new RemoteReceiver(app, id, filter));
    }

    /** One of the process's receivers, or all of them ({@code id} 0: the process ended). */
    public void unregisterRemote(InstalledApp app, long id) {
        remoteReceivers.removeIf(r -> r.app().packageName.equals(app.packageName) && (id == 0 || r.id() == id));
    }

    /** The app processes that run their apps' manifest receivers (none: every receiver runs here). */
    public void useAppProcesses(AppProcessReceivers processes) {
        this.appProcesses = processes;
    }

    public void stop() {
        running = false;
        LockSupport.unpark(rt.thread);
        LockSupport.unpark(normal.thread);
    }

    public void sendBroadcast(Context caller, Intent intent, String permission, BroadcastReceiver resultReceiver,
            Handler scheduler) {
        send(caller, null, intent, resultReceiver, scheduler);
    }

    /**
     * A broadcast from an app the kernel identified (the system server's IPC: the connection's
     * {@code SO_PEERCRED} uid): the real-time sender check is a look-up of that app's grants,
     * not a stack walk.
     */
    public void sendBroadcastAs(String callerPackage, Intent intent) {
        send(application, callerPackage, intent, null, null);
    }

    private void send(Context caller, String knownCaller, Intent intent, BroadcastReceiver resultReceiver,
            Handler scheduler) {
        int priority = senderPriority(intent);
        if (discipline == Discipline.FOREGROUND) {
            priority = (intent.getFlags() & Intent.FLAG_RECEIVER_FOREGROUND) != 0 ? 1 : 0; // the queue, not the sender
        }
        if (priority >= RT_THRESHOLD && discipline == Discipline.PRIORITY) {
            long start = System.nanoTime();
            enforceRealtimeSender(priority, knownCaller != null ? knownCaller : Apps.askingPackage());
            long took = System.nanoTime() - start;
            senderChecks.incrementAndGet();
            senderCheckNanos.addAndGet(took);
            senderCheckWorstNanos.accumulateAndGet(took, Math::max);
        }
        Pending p = new Pending(new Intent(intent), priority, resultReceiver, scheduler, caller);
        p.sender = knownCaller;
        boolean fifo = discipline != Discipline.PRIORITY;
        Lane lane = priority >= RT_THRESHOLD && !fifo ? rt : normal;
        p.lane = lane;
        Pending dropped;
        boolean slotIdle;
        guard.acquire(fifo ? 0 : priority);
        try {
            p.arrival = arrivals++;
            dropped = lane.offer(p);
            queuedCount = rt.size + normal.size;
            slotIdle = !delivering;
            if (lane == rt && dropped != p && looperInDelivery) {
                lendPriorityToLooper(); // the receivers it runs hold the slot this one needs
            }
        } finally {
            guard.release();
        }
        if (dropped != null) {
            overflowed(lane, dropped);
        }
        // A busy slot's delivery ends with the main looper taking the most urgent queued
        // broadcast itself (under the guard, so it sees this one): only an idle slot needs the
        // lane's delivery thread. Waking it for nothing would add a context switch to the path
        // and, for the real-time lane, a preemption of the looper that is about to deliver.
        if (dropped != p && slotIdle) {
            LockSupport.unpark(lane.thread);
        }
    }

    /** The sender's priority extra, checked: an app's bad value is refused to the app. */
    static int senderPriority(Intent intent) {
        // Read in place: Intent.getExtras() copies the whole Bundle (measured: 5 -> 32 us at the
        // median of a real-time send among 100 parallel ones). Absent, not an int, or out of
        // range: the checking path below says which.
        int fast = intent.getIntExtra(ProxyContract.EXTRA_SENDER_PRIORITY, -1);
        if (fast >= 0 && fast <= MAX_SENDER_PRIORITY) {
            return fast;
        }
        Object v = intent.getExtras() == null ? null : intent.getExtras().get(ProxyContract.EXTRA_SENDER_PRIORITY);
        if (v == null) {
            return 0;
        }
        if (!(v instanceof Integer) || (Integer) v < 0 || (Integer) v > MAX_SENDER_PRIORITY) {
            throw new IllegalArgumentException("extra " + ProxyContract.EXTRA_SENDER_PRIORITY + " must be an int in 0.."
                    + MAX_SENDER_PRIORITY + ", got " + v + " (" + v.getClass().getSimpleName() + ")");
        }
        return (Integer) v;
    }

    /**
     * A real-time priority puts a broadcast ahead of everything else in the cell, the RT cell's
     * intents included: only a sender holding {@link ProxyContract#PERMISSION_REALTIME_BROADCAST}
     * may claim one (as AOSP's broadcast path checks a sender's permissions, by the caller's
     * identity, never by the intent's data). The system and the proxy hold it.
     */
    private void enforceRealtimeSender(int priority, String calling) {
        if (calling != null && !packages.holds(calling, ProxyContract.PERMISSION_REALTIME_BROADCAST)) {
            throw new SecurityException("Permission Denial: broadcast at real-time sender priority " + priority
                    + " from " + calling + " requires " + ProxyContract.PERMISSION_REALTIME_BROADCAST);
        }
    }

    /**
     * One lane's delivery thread: when the delivery slot is idle, takes the lane's most urgent
     * broadcast, unless something more urgent waits in the other lane, and hands it to the main
     * looper (the real-time lane to the front of its queue).
     */
    private void deliveryLoop(Lane lane, Lane other) {
        while (running) {
            Pending p = null;
            guard.acquire(lane.guardPriority);
            try {
                if (!delivering && !lane.isEmpty() && lane.headPriority() >= other.headPriority()) {
                    p = lane.pollFirst();
                    delivering = true;
                    queuedCount = rt.size + normal.size;
                }
            } finally {
                guard.release();
            }
            if (p == null) {
                LockSupport.park(this); // woken by a send or stop
            } else {
                long before = THREADS.getCurrentThreadAllocatedBytes();
                dispatch(p);
                lane.handoverBytes += THREADS.getCurrentThreadAllocatedBytes() - before;  // only this thread writes both
                lane.handedOver++;
            }
        }
    }

    /**
     * Posts a taken broadcast to the main looper. When it has been delivered the main looper
     * takes the most urgent queued one itself and posts it the same way, without a hop through a
     * delivery thread; only when nothing is queued does the slot go idle.
     */
    private void dispatch(Pending p) {
        if (!(p.lane == rt ? main.postAtFrontOfQueue(p) : main.post(p))) {
            CellLog.w(TAG, "main looper gone: " + p.intent.getAction() + " not delivered");
            running = false;
        }
    }

    /** On the main looper: delivers p, then takes the most urgent queued broadcast and posts it. */
    private void deliverAndContinue(Pending p) {
        if (looperTid == 0) {
            looperTid = RealtimeScheduling.tid();
        }
        guard.acquire(MAX_SENDER_PRIORITY + 1);
        try {
            looperInDelivery = true;
            if (p.lane == rt || !rt.isEmpty()) {
                boostLooper(true); // a real-time broadcast's receivers, or receivers a real-time broadcast waits for
            }
        } finally {
            guard.release();
        }
        Pending next;
        try {
            deliver(p);
        } finally {
            guard.acquire(MAX_SENDER_PRIORITY + 1);
            try {
                looperInDelivery = false;
                p.lane.delivered++;
                Lane l = rt.isEmpty() ? normal : rt; // every rt priority is above every normal one
                next = l.pollFirst();
                delivering = next != null;
                queuedCount = rt.size + normal.size;
                // A real-time next one is posted at the front of the queue, so it is the looper's
                // very next message: the looper stays at SCHED_FIFO for it. Otherwise it drops back
                // before it leaves the delivery, so that nothing else it runs (layout, app
                // launches, other apps' messages) ever runs at SCHED_FIFO.
                boostLooper(next != null && next.lane == rt);
            } finally {
                guard.release();
            }
        }
        if (next != null) {
            dispatch(next);
        }
    }

    /**
     * Under the guard, on the main looper: at SCHED_FIFO exactly while it runs a real-time
     * broadcast's receivers, or has one posted as its very next message.
     */
    private void boostLooper(boolean boost) {
        if (boost != looperBoosted && realtimeSchedulingErrno == 0
                && RealtimeScheduling.set(0, boost ? RealtimeScheduling.SCHED_FIFO : RealtimeScheduling.SCHED_OTHER,
                        boost ? RealtimeScheduling.LOOPER_PRIORITY : 0) == 0) {
            looperBoosted = boost;
        }
    }

    /**
     * Under the guard, on a real-time broadcast's sending thread, while the main looper is running
     * a normal broadcast's receivers and that broadcast now waits for the slot they hold:
     * priority inheritance for the slot. The receivers finish at the real-time priority instead of
     * sharing the CPU with every runnable low-priority sender, and the looper drops back as it
     * leaves that delivery ({@link #deliverAndContinue}), unless the waiting real-time broadcast
     * is its next message. Never lent to a looper that is not inside a delivery: it would run
     * whatever else is queued on it (layout, app launches) at SCHED_FIFO, starving the cell's
     * other threads and, on a board where the cells share a CPU, the RT cell's non-real-time ones.
     */
    private void lendPriorityToLooper() {
        if (!looperBoosted && looperTid != 0 && realtimeSchedulingErrno == 0) {
            looperBoosted = RealtimeScheduling.set(looperTid, RealtimeScheduling.SCHED_FIFO, RealtimeScheduling.LOOPER_PRIORITY) == 0;
        }
    }

    /** What the real-time path runs at, for the cell's state: "SCHED_FIFO", "SCHED_OTHER (errno N)", "off" or "not started". */
    public String realtimeScheduling() {
        int errno = realtimeSchedulingErrno;
        if (discipline != Discipline.PRIORITY) {
            return "off";
        }
        return errno == RealtimeScheduling.OFF_BY_BOARD ? "SCHED_OTHER (board: realtime_threads false)"
                : errno < 0 ? "not started" : errno == 0 ? "SCHED_FIFO" : "SCHED_OTHER (errno " + errno + ")";
    }

    private void overflowed(Lane lane, Pending p) {
        CellLog.w(TAG, "broadcast lane '" + lane.name + "' full (" + lane.capacity + "), " + OVERFLOW_POLICY
                + ": dropped " + p.intent.getAction() + " (sender priority " + p.priority + ")");
        if (p.resultReceiver != null) {
            p.intent.putExtra(ProxyContract.EXTRA_BROADCAST_DROPPED, true);
            main.post(() -> finish(p));
        }
    }

    /** The real-time lane's delivery thread ({@code broadcast-rt}; null before {@link #start}). */
    public Thread realtimeDeliveryThread() {
        return rt.thread;
    }

    /** Kernel thread ids of the real-time delivery thread and the main looper (0 until they ran; for tests). */
    public int[] realtimeTids() {
        return new int[] {realtimeDeliveryTid, looperTid};
    }

    /** Broadcasts the real-time delivery thread handed to the main looper itself. */
    public long realtimeHandovers() {
        return rt.handedOver;
    }

    /** Heap bytes the real-time delivery thread allocated inside the framework's post of those hand-overs. */
    public long realtimeHandoverBytes() {
        return rt.handoverBytes;
    }

    /** Broadcasts dropped by the overflow policy, both lanes. */
    public long dropped() {
        guard.acquire(0);
        try {
            return rt.dropped + normal.dropped;
        } finally {
            guard.release();
        }
    }

    /**
     * Broadcasts waiting in both lanes: read without the guard, so that a reader polling it (a
     * test's or the benchmark's gate) never holds the guard when a real-time thread wants it.
     */
    public int queued() {
        return queuedCount;
    }

    /** The real-time senders' identity checks so far: their total time (ns). */
    public long senderCheckNanos() {
        return senderCheckNanos.get();
    }

    /**
     * Queue counters for the cell's state: {overflowPolicy, rtThreshold, realtimeScheduling,
     * senderCheck: {checks, meanMicros, worstMicros}, lanes: {rt, normal}}.
     */
    public String statsJson() {
        long checks = senderChecks.get();
        double mean = checks == 0 ? 0 : senderCheckNanos.get() / 1000.0 / checks;
        guard.acquire(0);
        try {
            JsonWriter w = new JsonWriter().beginObject().field("overflowPolicy", OVERFLOW_POLICY)
                    .field("rtThreshold", RT_THRESHOLD).field("realtimeScheduling", realtimeScheduling())
                    .name("senderCheck").beginObject().field("checks", checks).field("meanMicros", mean, 1)
                    .field("worstMicros", senderCheckWorstNanos.get() / 1000.0, 1).endObject()
                    .name("lanes").beginObject();
            rt.write(w.name("rt"));
            normal.write(w.name("normal"));
            return w.endObject().endObject().toString();
        } finally {
            guard.release();
        }
    }

    /**
     * A bounded lane of queued broadcasts and its delivery thread. The queue is a fixed array kept
     * most urgent first (insertion by binary search, removal at either end by a copy of at most
     * {@code capacity} references): taking a broadcast allocates nothing. Fields guarded by the guard.
     */
    private static final class Lane {
        final String name;
        final int capacity;
        /** The delivery thread's priority at the guard: ahead of the senders it serves. */
        final int guardPriority;
        private final Comparator<Pending> order;
        /** queue[0 .. size): most urgent first; one spare slot for the arrival that overflows. */
        private final Pending[] queue;
        int size;
        Thread thread;
        long enqueued;
        /** Broadcasts this lane's delivery thread handed to the main looper (the rest went on from the looper itself). */
        volatile long handedOver;
        /**
         * Heap bytes the delivery thread allocated inside those hand-overs, i.e. in the framework's
         * {@code Handler.post}: none on a device (pooled messages); Robolectric's MessageQueue shadow
         * allocates a few dozen bytes per message here.
         */
        volatile long handoverBytes;
        long delivered;
        long dropped;
        int maxQueued;

        Lane(String name, int capacity, int guardPriority, Comparator<Pending> order) {
            this.queue = new Pending[capacity + 1];
            this.order = order;
            this.name = name;
            this.capacity = capacity;
            this.guardPriority = guardPriority;
        }

        void start(int javaPriority, Runnable loop) {
            thread = new Thread(loop, name.equals("rt") ? "broadcast-rt" : "broadcast");
            thread.setDaemon(true);
            thread.setPriority(javaPriority);
            thread.start();
        }

        /** Queues p; when over capacity removes and returns the least urgent (maybe p). */
        Pending offer(Pending p) {
            int lo = 0;
            int hi = size;
            while (lo < hi) { // first queued entry that p goes before
                int mid = (lo + hi) >>> 1;
                if (order.compare(queue[mid], p) <= 0) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            System.arraycopy(queue, lo, queue, lo + 1, size - lo);
            queue[lo] = p;
            size++;
            enqueued++;
            if (size > capacity) {
                dropped++;
                Pending last = queue[--size];
                queue[size] = null;
                return last;
            }
            maxQueued = Math.max(maxQueued, size);
            return null;
        }

        boolean isEmpty() {
            return size == 0;
        }

        /** Removes and returns the most urgent, or null. */
        Pending pollFirst() {
            if (size == 0) {
                return null;
            }
            Pending first = queue[0];
            System.arraycopy(queue, 1, queue, 0, --size);
            queue[size] = null;
            return first;
        }

        int headPriority() {
            return size == 0 ? -1 : queue[0].priority;
        }

        void write(JsonWriter w) {
            w.beginObject().field("capacity", capacity).field("queued", size).field("maxQueued", maxQueued)
                    .field("enqueued", enqueued).field("delivered", delivered).field("dropped", dropped).endObject();
        }
    }

    /** A broadcast waiting for delivery; run on the main looper, it is delivered. */
    final class Pending implements Runnable {
        final Intent intent;
        final int priority;
        final BroadcastReceiver resultReceiver;
        final Handler scheduler;
        final Context caller;
        /** The sender the kernel named (the IPC), or null (a call in this JVM, not checked here). */
        String sender;
        long arrival;
        Lane lane;

        Pending(Intent intent, int priority, BroadcastReceiver resultReceiver, Handler scheduler, Context caller) {
            this.intent = intent;
            this.priority = priority;
            this.resultReceiver = resultReceiver;
            this.scheduler = scheduler;
            this.caller = caller;
        }

        @Override
        public void run() {
            deliverAndContinue(this);
        }
    }

    /** One receiver of a broadcast: a runtime-registered one, or a manifest class to instantiate. */
    private record Target(InstalledApp app, BroadcastReceiver runtime, Context context, String manifestClass,
            int priority, long remoteId) {
    }

    /** On the main looper. */
    private void deliver(Pending p) {
        Intent intent = p.intent;
        List<Target> targets = receiversOf(intent, p.sender);
        List<java.util.concurrent.CompletableFuture<Long>> inProcesses = new ArrayList<>();
        for (Target t : targets) {
            if (t.app() != null && t.app().state == InstalledApp.State.CRASHED) {
                continue; // crashed while this broadcast was going round
            }
            BroadcastReceiver receiver = t.runtime();
            AppProcessReceivers remote = appProcesses;
            if (t.remoteId() > 0 && remote != null) {
                inProcesses.add(remote.deliverRegistered(t.app(), t.remoteId(), intent));
                continue;
            }
            if (receiver == null && remote != null && remote.hosts(t.app())) {
                inProcesses.add(remote.deliver(t.app(), t.manifestClass(), intent)); // a copy of the Intent, in the app's process
                continue;
            }
            try {
                if (receiver == null) {
                    // A manifest receiver is instantiated for each broadcast, as on a device.
                    receiver = Class.forName(t.manifestClass(), true, t.app().loader).asSubclass(BroadcastReceiver.class)
                            .getDeclaredConstructor().newInstance();
                }
                receiver.onReceive(t.context(), intent);
            } catch (Throwable e) {
                String where = "BroadcastReceiver " + (receiver != null ? receiver.getClass().getName() : t.manifestClass())
                        + ".onReceive(" + intent.getAction() + ")";
                if (t.app() != null) {
                    crashes.crash(t.app(), where, e);
                } else {
                    CellLog.e(TAG, where + " threw", e);
                }
            }
        }
        if (inProcesses.isEmpty() || p.resultReceiver == null) {
            finish(p);
        } else {
            // the result once every app process ran its receiver (the queue goes on meanwhile)
            java.util.concurrent.CompletableFuture.allOf(inProcesses.toArray(java.util.concurrent.CompletableFuture[]::new))
                    .whenComplete((done, failed) -> {
                        // when the last receiver returned, in its process: the moment the sender
                        // measures (the way back to this JVM is no part of the delivery)
                        long returned = -1;
                        for (java.util.concurrent.CompletableFuture<Long> f : inProcesses) {
                            returned = Math.max(returned, f.isDone() && !f.isCompletedExceptionally() ? f.join() : -1);
                        }
                        long at = returned;
                        main.post(() -> {
                            if (at > 0) {
                                p.intent.putExtra(ProxyContract.EXTRA_RECEIVED_NANOS, at);
                            }
                            finish(p);
                        });
                    });
        }
    }

    /** An ordered broadcast's result receiver; on the main looper. */
    private void finish(Pending p) {
        if (p.resultReceiver == null) {
            return;
        }
        Runnable result = () -> {
            try {
                p.resultReceiver.onReceive(p.caller, p.intent);
            } catch (Throwable e) {
                CellLog.e(TAG, "result receiver of " + p.intent.getAction() + " threw", e);
            }
        };
        // As on a device: on the scheduler's thread if one was given, else the main thread.
        if (p.scheduler == null || p.scheduler.getLooper() == Looper.myLooper()) {
            result.run();
        } else {
            p.scheduler.post(result);
        }
    }

    /** Matching receivers, highest filter priority first. */
    private List<Target> receiversOf(Intent intent, String sender) {
        String onlyPackage = intent.getPackage();
        ComponentName onlyComponent = intent.getComponent();
        List<Target> targets = new ArrayList<>();
        if (onlyComponent == null) {
            for (ShadowApplication.Wrapper w : shadowOf(application).getRegisteredReceivers()) {
                String pkg = Apps.packageOf(w.broadcastReceiver);
                if (onlyPackage != null && !onlyPackage.equals(pkg)) {
                    continue;
                }
                InstalledApp app = packages.get(pkg);
                if (app != null && app.state == InstalledApp.State.CRASHED) {
                    continue;
                }
                if (w.intentFilter.match(application.getContentResolver(), intent, false, TAG) >= 0) {
                    targets.add(new Target(app, w.broadcastReceiver, w.context, null, w.intentFilter.getPriority(), 0));
                }
            }
            for (RemoteReceiver r : remoteReceivers) {
                if ((onlyPackage == null || onlyPackage.equals(r.app().packageName))
                        && r.app().state != InstalledApp.State.CRASHED
                        && r.filter().match(application.getContentResolver(), intent, false, TAG) >= 0) {
                    targets.add(new Target(r.app(), null, null, null, r.filter().getPriority(), r.id()));
                }
            }
        }
        for (InstalledApp app : packages.installed()) {
            if (app.bundle == null || app.state == InstalledApp.State.CRASHED
                    || (onlyPackage != null && !onlyPackage.equals(app.packageName))) {
                continue;
            }
            for (AppBundle.Component r : app.bundle.receivers) {
                boolean match = onlyComponent != null
                        ? onlyComponent.getPackageName().equals(app.packageName)
                        && onlyComponent.getClassName().equals(r.className())
                        : IntentResolver.matches(r, intent);
                if (match && !r.exported() && sender != null && !sender.equals(app.packageName)) {
                    // as AOSP: another app's broadcast does not reach a receiver its app did not export
                    CellLog.w(TAG, "Permission Denial: broadcast " + intent.getAction() + " from " + sender + " not delivered to "
                            + app.packageName + "/" + r.className() + ": not exported from uid " + app.uid);
                    continue;
                }
                if (match) {
                    int prio = r.filters().isEmpty() ? 0 : r.filters().get(0).priority;
                    targets.add(new Target(app, null, application, r.className(), prio, 0));
                }
            }
        }
        targets.sort((a, b) -> Integer.compare(b.priority(), a.priority()));
        return targets;
    }

    /** Drops the app's runtime-registered receivers (its components are going). Main looper. */
    public void unregisterReceiversOf(InstalledApp app) {
        for (ShadowApplication.Wrapper w : shadowOf(application).getRegisteredReceivers()) {
            if (Apps.packageOf(w.broadcastReceiver).equals(app.packageName)) {
                try {
                    w.context.unregisterReceiver(w.broadcastReceiver);
                } catch (RuntimeException ignored) {
                    // already unregistered by the app's own onPause
                }
            }
        }
    }
}
