package org.rtdroid.android.content;

import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;
import android.content.IntentFilter;
import android.os.Bundle;
import android.os.Handler;
import android.os.Looper;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An app's in-process broadcasts with the support library's {@code LocalBroadcastManager} API,
 * delivered most urgent first instead of in arrival order (Kalkov et al., seed 001, "Local
 * broadcasts via LBM": priority queues instead of FIFO queues, real-time intents first on the UI
 * thread, synchronous delivery limited to the current intent).
 *
 * <p>A broadcast's priority is its sender's: the int extra {@link #EXTRA_SENDER_PRIORITY} (0..99,
 * the RT cell's scale, as for the cell's own broadcast queue; absent = 0; anything else is refused
 * to the sender with {@link IllegalArgumentException}). Pending broadcasts wait in one bounded
 * queue, most urgent first and first come within a priority; receivers run on the main looper, as
 * with the stock class. A broadcast at {@link #RT_THRESHOLD} or above is posted to the front of
 * the main looper's queue, so it waits at most for the message the looper is running. When the
 * queue is full the least urgent pending broadcast (the latest among equals, possibly the one just
 * sent) is dropped and counted: {@link #OVERFLOW_POLICY}.
 *
 * <p>What allocates where: {@link #sendBroadcast} (the sender's thread) matches the receivers
 * into a list and queues a record of the broadcast; the main looper's delivery of a queued
 * broadcast allocates nothing (a fixed, sorted array of pending broadcasts; receivers called by
 * index), only the receivers themselves may.
 *
 * <p>Unlike the stock class, {@link #sendBroadcastSync} delivers only the intent it is given, in
 * the caller's thread: it never first runs every pending broadcast, which would make an urgent
 * caller wait for all of them. Nothing here crosses the app's process, so no permission guards
 * the priority (the cell's queue does, for broadcasts between apps).
 */
public final class LocalBroadcastManager {
    /** The sender's priority, 0..99; the cell's broadcast queue reads the same extra. */
    public static final String EXTRA_SENDER_PRIORITY = "org.rtdroid.intent.extra.SENDER_PRIORITY";
    public static final int RT_THRESHOLD = 50;
    public static final int MAX_SENDER_PRIORITY = 99;
    /** Pending broadcasts one process may hold. */
    public static final int CAPACITY = 256;
    public static final String OVERFLOW_POLICY = "DROP_LEAST_URGENT";

    private static final Object INSTANCE_LOCK = new Object();
    private static LocalBroadcastManager instance;

    private static final class Registration {
        final IntentFilter filter;
        final BroadcastReceiver receiver;

        Registration(IntentFilter filter, BroadcastReceiver receiver) {
            this.filter = filter;
            this.receiver = receiver;
        }
    }

    private static final class Pending {
        final Intent intent;
        final List<BroadcastReceiver> receivers;
        final int priority;
        final long arrival;

        Pending(Intent intent, List<BroadcastReceiver> receivers, int priority, long arrival) {
            this.intent = intent;
            this.receivers = receivers;
            this.priority = priority;
            this.arrival = arrival;
        }
    }

    private static final Comparator<Pending> MOST_URGENT_FIRST = new Comparator<Pending>() {
        @Override
        public int compare(Pending a, Pending b) {
            return a.priority != b.priority ? Integer.compare(b.priority, a.priority) : Long.compare(a.arrival, b.arrival);
        }
    };

    private final Context appContext;
    private final Handler main;
    private final Runnable deliverMostUrgent = new Runnable() {
        @Override
        public void run() {
            deliverMostUrgent();
        }
    };
    // all guarded by registrations
    private final Map<BroadcastReceiver, List<Registration>> registrations = new HashMap<>();
    private final Map<String, List<Registration>> byAction = new HashMap<>();
    /**
     * pending[0 .. pendingCount): most urgent first, one spare slot for the arrival that
     * overflows; a fixed array, so that taking a broadcast on the main looper allocates nothing.
     */
    private final Pending[] pending = new Pending[CAPACITY + 1];
    private int pendingCount;
    private long arrivals;
    private long dropped;
    private long delivered;

    /**
     * The process's one instance (its application context's main looper delivers). Keyed by the
     * application context: a process has one, and a test harness that makes a new application per
     * test gets a fresh instance with it.
     */
    public static LocalBroadcastManager getInstance(Context context) {
        Context app = context.getApplicationContext();
        synchronized (INSTANCE_LOCK) {
            if (instance == null || instance.appContext != app) {
                instance = new LocalBroadcastManager(app);
            }
            return instance;
        }
    }

    private LocalBroadcastManager(Context appContext) {
        this.appContext = appContext;
        this.main = new Handler(appContext.getMainLooper());
    }

    public void registerReceiver(BroadcastReceiver receiver, IntentFilter filter) {
        synchronized (registrations) {
            Registration r = new Registration(filter, receiver);
            List<Registration> mine = registrations.get(receiver);
            if (mine == null) {
                mine = new ArrayList<>(1);
                registrations.put(receiver, mine);
            }
            mine.add(r);
            for (int i = 0; i < filter.countActions(); i++) {
                String action = filter.getAction(i);
                List<Registration> rs = byAction.get(action);
                if (rs == null) {
                    rs = new ArrayList<>(1);
                    byAction.put(action, rs);
                }
                rs.add(r);
            }
        }
    }

    public void unregisterReceiver(BroadcastReceiver receiver) {
        synchronized (registrations) {
            List<Registration> mine = registrations.remove(receiver);
            if (mine == null) {
                return;
            }
            for (Registration r : mine) {
                for (int i = 0; i < r.filter.countActions(); i++) {
                    String action = r.filter.getAction(i);
                    List<Registration> rs = byAction.get(action);
                    if (rs != null) {
                        rs.remove(r);
                        if (rs.isEmpty()) {
                            byAction.remove(action);
                        }
                    }
                }
            }
        }
    }

    /**
     * Queues {@code intent} for the receivers whose filters match it now, at its sender's
     * priority. Returns whether it was queued for at least one receiver (false: none matched, or
     * the full queue dropped it on arrival).
     */
    public boolean sendBroadcast(Intent intent) {
        int priority = senderPriority(intent);
        synchronized (registrations) {
            List<BroadcastReceiver> receivers = matching(intent);
            if (receivers.isEmpty()) {
                return false;
            }
            Pending p = new Pending(intent, receivers, priority, arrivals++);
            insert(p);
            if (pendingCount > CAPACITY) {
                Pending victim = pending[--pendingCount];
                pending[pendingCount] = null;
                dropped++;
                android.util.Log.w("LocalBroadcastManager", "queue full (" + CAPACITY + "), " + OVERFLOW_POLICY
                        + ": dropped " + victim.intent.getAction() + " (sender priority " + victim.priority + ")");
                if (victim == p) {
                    return false;
                }
            }
        }
        // One message per queued broadcast; each delivers whatever is most urgent when it runs.
        if (priority >= RT_THRESHOLD) {
            main.postAtFrontOfQueue(deliverMostUrgent);
        } else {
            main.post(deliverMostUrgent);
        }
        return true;
    }

    /**
     * Delivers {@code intent} to its matching receivers now, in the calling thread, and returns
     * whether any matched. Pending broadcasts stay pending: they are not run first.
     */
    public boolean sendBroadcastSync(Intent intent) {
        senderPriority(intent);
        List<BroadcastReceiver> receivers;
        synchronized (registrations) {
            receivers = matching(intent);
        }
        for (BroadcastReceiver r : receivers) {
            r.onReceive(appContext, intent);
        }
        return !receivers.isEmpty();
    }

    /** Broadcasts queued and not yet delivered. */
    public int pendingCount() {
        synchronized (registrations) {
            return pendingCount;
        }
    }

    /** Queues p after every pending broadcast at least as urgent (guarded by registrations). */
    private void insert(Pending p) {
        int lo = 0;
        int hi = pendingCount;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (MOST_URGENT_FIRST.compare(pending[mid], p) <= 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        System.arraycopy(pending, lo, pending, lo + 1, pendingCount - lo);
        pending[lo] = p;
        pendingCount++;
    }

    /** Broadcasts dropped by {@link #OVERFLOW_POLICY} since start. */
    public long droppedCount() {
        synchronized (registrations) {
            return dropped;
        }
    }

    /** Broadcasts delivered from the queue since start. */
    public long deliveredCount() {
        synchronized (registrations) {
            return delivered;
        }
    }

    /** On the main looper; allocates nothing (the receivers are app code). */
    private void deliverMostUrgent() {
        Pending p;
        synchronized (registrations) {
            if (pendingCount == 0) {
                return; // its broadcast was dropped; a later message took its place
            }
            p = pending[0];
            System.arraycopy(pending, 1, pending, 0, --pendingCount);
            pending[pendingCount] = null;
            delivered++;
        }
        List<BroadcastReceiver> receivers = p.receivers;
        for (int i = 0; i < receivers.size(); i++) { // by index: no iterator
            receivers.get(i).onReceive(appContext, p.intent);
        }
    }

    /** Receivers whose filters match {@code intent} (as the stock class matches: action first). */
    private List<BroadcastReceiver> matching(Intent intent) {
        List<BroadcastReceiver> out = new ArrayList<>(2);
        List<Registration> rs = byAction.get(intent.getAction());
        if (rs == null) {
            return out;
        }
        String type = intent.resolveTypeIfNeeded(appContext.getContentResolver());
        for (Registration r : rs) {
            int m = r.filter.match(intent.getAction(), type, intent.getScheme(), intent.getData(),
                    intent.getCategories(), "LocalBroadcastManager");
            if (m >= 0 && !out.contains(r.receiver)) {
                out.add(r.receiver);
            }
        }
        return out;
    }

    /** The sender's priority extra, checked: a bad value is refused to the sender. */
    static int senderPriority(Intent intent) {
        Bundle extras = intent.getExtras();
        Object v = extras == null ? null : extras.get(EXTRA_SENDER_PRIORITY);
        if (v == null) {
            return 0;
        }
        if (!(v instanceof Integer) || (Integer) v < 0 || (Integer) v > MAX_SENDER_PRIORITY) {
            throw new IllegalArgumentException("extra " + EXTRA_SENDER_PRIORITY + " must be an int in 0.."
                    + MAX_SENDER_PRIORITY + ", got " + v + " (" + v.getClass().getSimpleName() + ")");
        }
        return (Integer) v;
    }
}
