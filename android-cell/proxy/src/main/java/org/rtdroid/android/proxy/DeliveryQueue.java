package org.rtdroid.android.proxy;

import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;
import android.os.Handler;
import android.util.Log;

import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;

import org.rtdroid.bridge.codec.Frame;

/**
 * RT → Android on the proxy's looper: intents from the RT cell wait in a priority queue (sender
 * priority, then arrival), bounded at {@link #MAX_PENDING_DELIVERIES}; one is delivered to every
 * app that declares its channel before the next is taken; replies to an app's request are
 * matched to it and their round trip recorded.
 */
final class DeliveryQueue {
    /** Bound of intents waiting for delivery; when full the lowest-priority one is dropped. */
    static final int MAX_PENDING_DELIVERIES = 256;

    private final Context context;
    private final Handler handler;
    private final RtLink link;
    private final ChannelTable channels;
    private final ProxySender sender;
    private final ProxyStats stats;
    private final LatencyLog latency;
    private final PriorityQueue<Inbound> pending = new PriorityQueue<>();
    private long arrivals;
    private boolean delivering;
    private boolean drainPosted;

    DeliveryQueue(Context context, Handler handler, RtLink link, ChannelTable channels, ProxySender sender,
            ProxyStats stats, LatencyLog latency) {
        this.context = context;
        this.handler = handler;
        this.link = link;
        this.channels = channels;
        this.sender = sender;
        this.stats = stats;
        this.latency = latency;
    }

    /** Called on the RtLink thread with a decoded intent frame. */
    void enqueueFromRt(Frame frame, int ring, long frameReadNanos) {
        Frame.Intent fi = frame.intent();
        Inbound in = new Inbound(fi.channelString(), fi.actionString(), fi.senderPriority(),
                Arrays.copyOf(fi.payload().array(), fi.payload().length()),
                fi.correlationId(), fi.rtReceiveNanos(), fi.rtReplyNanos(), frame.seq(), ring, frameReadNanos);
        handler.post(() -> accept(in));
    }

    int pending() {
        return pending.size();
    }

    private void accept(Inbound in) {
        in.acceptNanos = System.nanoTime();
        stats.framesIn++;
        stats.channel(in.channel).in++;
        in.arrival = arrivals++;
        pending.add(in);
        if (pending.size() > MAX_PENDING_DELIVERIES) {
            // Drop the least urgent, latest arrival: bounded queue, named policy.
            Inbound worst = null;
            for (Inbound p : pending) {
                if (worst == null || p.compareTo(worst) > 0) {
                    worst = p;
                }
            }
            pending.remove(worst);
            stats.droppedQueueFull++;
            Log.w(ProxyCore.TAG, "delivery queue full: dropped " + worst.action + " (priority " + worst.priority + ")");
        }
        if (!delivering) {
            drainOne(); // already on the proxy's looper: no extra hop
        }
    }

    private void scheduleDrain() {
        if (!delivering && !drainPosted && !pending.isEmpty()) {
            drainPosted = true;
            handler.post(this::drainOne);
        }
    }

    private void drainOne() {
        drainPosted = false;
        if (delivering) {
            return;
        }
        Inbound in = pending.poll();
        if (in == null) {
            return;
        }
        List<String> targets = channels.appsDeclaring(in.channel);
        if (targets == null || targets.isEmpty()) {
            stats.droppedUndeliverable++;
            stats.channel(in.channel).undeliverable++;
            link.countUndeliverable(in.ring);
            Log.w(ProxyCore.TAG, "no installed app declares channel '" + in.channel + "': dropped " + in.action);
            scheduleDrain();
            return;
        }
        ProxySender.Outstanding req = sender.takeOutstanding(in.correlationId);
        delivering = true;
        final int[] remaining = {targets.size()};
        // Result receiver without a scheduler: it runs on the main looper right after the last
        // app receiver returned, which is the moment measured; the bookkeeping goes back to the
        // proxy's thread.
        BroadcastReceiver done = new BroadcastReceiver() {
            @Override
            public void onReceive(Context c, Intent i) {
                long now = System.nanoTime();
                handler.post(() -> delivered(now));
            }

            private void delivered(long delivered) {
                if (--remaining[0] > 0) {
                    return;
                }
                stats.delivered++;
                if (ProxyCore.TRACE) {
                    Log.d(ProxyCore.TAG, "TRACE ring->proxy=" + (in.acceptNanos - in.frameReadNanos)
                            + " proxy->delivered=" + (delivered - in.acceptNanos));
                }
                if (req != null) {
                    stats.roundTrips++;
                    latency.record(delivered - req.appSendNanos, req.frameWrittenNanos - req.appSendNanos,
                            delivered - in.frameReadNanos,
                            in.rtReplyNanos >= in.rtReceiveNanos ? in.rtReplyNanos - in.rtReceiveNanos : -1);
                }
                delivering = false;
                scheduleDrain();
            }
        };
        for (String pkg : targets) {
            Intent out = new Intent(in.action);
            out.setPackage(pkg);
            out.putExtra(ProxyContract.EXTRA_CHANNEL, in.channel);
            out.putExtra(ProxyContract.EXTRA_PAYLOAD, in.payload);
            out.putExtra(ProxyContract.EXTRA_PRIORITY, in.priority);
            // A reply carries the requesting app's own correlation id, only to that app.
            long id = req != null && req.sender.equals(pkg) ? req.appCorrelation : 0;
            out.putExtra(ProxyContract.EXTRA_CORRELATION_ID, id);
            out.putExtra(ProxyContract.EXTRA_RT_RECEIVE_NANOS, in.rtReceiveNanos);
            out.putExtra(ProxyContract.EXTRA_RT_REPLY_NANOS, in.rtReplyNanos);
            out.putExtra(ProxyContract.EXTRA_SEQ, in.seq);
            context.sendOrderedBroadcast(out, null, done, null, 0, null, null);
        }
    }

    /** An intent from the RT cell awaiting delivery. */
    static final class Inbound implements Comparable<Inbound> {
        final String channel;
        final String action;
        final int priority;
        final byte[] payload;
        final long correlationId;
        final long rtReceiveNanos;
        final long rtReplyNanos;
        final long seq;
        final int ring;
        final long frameReadNanos;
        long arrival;
        long acceptNanos;

        Inbound(String channel, String action, int priority, byte[] payload, long correlationId,
                long rtReceiveNanos, long rtReplyNanos, long seq, int ring, long frameReadNanos) {
            this.channel = channel;
            this.action = action;
            this.priority = priority;
            this.payload = payload;
            this.correlationId = correlationId;
            this.rtReceiveNanos = rtReceiveNanos;
            this.rtReplyNanos = rtReplyNanos;
            this.seq = seq;
            this.ring = ring;
            this.frameReadNanos = frameReadNanos;
        }

        /** Higher priority first, then first come. */
        @Override
        public int compareTo(Inbound o) {
            if (priority != o.priority) {
                return Integer.compare(o.priority, priority);
            }
            return Long.compare(arrival, o.arrival);
        }
    }
}
