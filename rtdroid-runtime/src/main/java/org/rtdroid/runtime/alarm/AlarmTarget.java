package org.rtdroid.runtime.alarm;

import java.nio.charset.StandardCharsets;
import org.rtdroid.runtime.channel.IntentConsumer;
import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.event.AsyncEvent;
import org.rtdroid.runtime.event.AsyncEventHandler;
import org.rtdroid.runtime.os.Linux;

/**
 * One receiver alarms are delivered to: an {@link AsyncEvent} with one handler at the receiver's
 * priority. The alarm thread puts a due alarm in this target's queue and fires the event; the
 * handler, on its bound or pooled thread at the receiver's priority, takes the alarm out, fills
 * the target's one pre-allocated intent and calls the receiver. The handler runs one firing at a
 * time, so the receiver's callbacks never overlap.
 */
final class AlarmTarget {
    private static final byte[] ACTION = AlarmManager.ACTION.getBytes(StandardCharsets.US_ASCII);

    private final String name;
    private final int priority;
    private final IntentConsumer receiver;
    private final AsyncEvent event;
    private final Handler handler;
    private final RealtimeIntent intent;
    // Due alarms, single producer (the alarm thread), single consumer (the handler): a pending
    // intent is in it at most once (its due flag), so capacity = the manager's capacity suffices.
    private final PendingIntent[] dueIntents;
    private final long[] dueTrigger;
    private final long[] dueFired;
    private volatile long head;
    private volatile long tail;
    private volatile long delivered;
    private volatile long worstDeliveryNanos;

    AlarmTarget(String name, int priority, IntentConsumer receiver, int capacity) {
        this.name = name;
        this.priority = priority;
        this.receiver = receiver;
        this.event = new AsyncEvent("alarm:" + name, 1);
        this.handler = new Handler(name, priority);
        this.intent = new RealtimeIntent("alarm", AlarmManager.PAYLOAD_BYTES);
        this.dueIntents = new PendingIntent[capacity];
        this.dueTrigger = new long[capacity];
        this.dueFired = new long[capacity];
    }

    AsyncEventHandler handler() { return handler; }

    AsyncEvent event() { return event; }

    String name() { return name; }

    int priority() { return priority; }

    long delivered() { return delivered; }

    long worstDeliveryNanos() { return worstDeliveryNanos; }

    /** Alarm thread: queue one due alarm and fire the event. @return false if it was still queued (coalesced) */
    boolean fire(PendingIntent p, long triggerNanos, long firedNanos) {
        if (p.due) {
            return false;
        }
        p.due = true;
        long t = tail;
        int i = (int) (t % dueIntents.length);
        dueIntents[i] = p;
        dueTrigger[i] = triggerNanos;
        dueFired[i] = firedNanos;
        tail = t + 1;
        event.fire();
        return true;
    }

    private final class Handler extends AsyncEventHandler {
        Handler(String name, int priority) { super(name, priority); }

        @Override
        public void handleAsyncEvent() {
            long h = head;
            if (h == tail) {
                return;
            }
            int i = (int) (h % dueIntents.length);
            PendingIntent p = dueIntents[i];
            long trigger = dueTrigger[i];
            long fired = dueFired[i];
            dueIntents[i] = null;
            head = h + 1;
            p.due = false;
            RealtimeIntent in = intent;
            in.clear();
            in.setAction(ACTION, 0, ACTION.length);
            in.stampOrigin(ACTION, p.senderPriority, trigger);
            in.what = p.requestCode;
            in.putLong(AlarmManager.TRIGGER_NANOS_OFFSET, trigger);
            in.putLong(AlarmManager.FIRE_NANOS_OFFSET, fired);
            long late = Linux.monotonicNanos() - trigger;
            if (late > worstDeliveryNanos) {
                worstDeliveryNanos = late;
            }
            receiver.onIntent(in);
            delivered++;
        }
    }
}
