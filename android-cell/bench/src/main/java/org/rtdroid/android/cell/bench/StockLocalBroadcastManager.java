package org.rtdroid.android.cell.bench;

import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;
import android.content.IntentFilter;
import android.os.Handler;
import android.os.Looper;

import java.util.ArrayList;
import java.util.List;

/**
 * The intent benchmark's local-broadcast baseline: the support library's LocalBroadcastManager as
 * seed 001 describes it ("Objects are stored to a FIFO queue", "The delivery is performed by the
 * application's UI thread"): {@code sendBroadcast} appends the broadcast and its matching
 * receivers to one pending list and, if none is scheduled, posts one message to the main looper;
 * that message takes every pending broadcast at once and delivers them in arrival order. Written
 * here from that behaviour, for the benchmark only; the cell's apps use
 * {@link org.rtdroid.android.content.LocalBroadcastManager}.
 */
final class StockLocalBroadcastManager {
    private record Registration(IntentFilter filter, BroadcastReceiver receiver) {}

    private record Pending(Intent intent, List<BroadcastReceiver> receivers) {}

    private final Context context;
    private final Handler main;
    private final List<Registration> registrations = new ArrayList<>();
    private final List<Pending> pending = new ArrayList<>();
    private boolean scheduled;

    StockLocalBroadcastManager(Context context) {
        this.context = context;
        this.main = new Handler(Looper.getMainLooper());
    }

    void registerReceiver(BroadcastReceiver receiver, IntentFilter filter) {
        synchronized (registrations) {
            registrations.add(new Registration(filter, receiver));
        }
    }

    void unregisterReceiver(BroadcastReceiver receiver) {
        synchronized (registrations) {
            registrations.removeIf(r -> r.receiver() == receiver);
        }
    }

    boolean sendBroadcast(Intent intent) {
        synchronized (registrations) {
            List<BroadcastReceiver> matched = new ArrayList<>();
            for (Registration r : registrations) {
                if (r.filter().hasAction(intent.getAction())) {
                    matched.add(r.receiver());
                }
            }
            if (matched.isEmpty()) {
                return false;
            }
            pending.add(new Pending(intent, matched));
            if (!scheduled) {
                scheduled = true;
                main.post(this::executePending);
            }
            return true;
        }
    }

    /** On the main looper: every broadcast pending now, in arrival order. */
    private void executePending() {
        while (true) {
            Pending[] batch;
            synchronized (registrations) {
                if (pending.isEmpty()) {
                    scheduled = false;
                    return;
                }
                batch = pending.toArray(new Pending[0]);
                pending.clear();
            }
            for (Pending p : batch) {
                for (BroadcastReceiver r : p.receivers()) {
                    r.onReceive(context, p.intent());
                }
            }
        }
    }
}
