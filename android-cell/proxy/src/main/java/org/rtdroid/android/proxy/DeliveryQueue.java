package org.rtdroid.android.proxy;

import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;
import android.os.Handler;
import android.util.Log;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.rtdroid.bridge.codec.Frame;

/**
 * RT → Android on the proxy's looper: each intent from the RT cell is handed, as an ordered
 * broadcast to every app that declares its channel, to the cell's broadcast queue at its RT
 * sender's priority ({@link ProxyContract#EXTRA_SENDER_PRIORITY}): that queue alone decides the
 * order of delivery, among the apps' own broadcasts, and bounds it (a broadcast it drops comes
 * back marked {@link ProxyContract#EXTRA_BROADCAST_DROPPED} and is counted here as
 * droppedQueueFull). Replies to an app's request are matched to it and their round trip
 * recorded.
 */
final class DeliveryQueue {
    private final Context context;
    private final Handler handler;
    private final RtLink link;
    private final ChannelTable channels;
    private final ProxySender sender;
    private final ProxyStats stats;
    private final LatencyLog latency;
    /** Handed to the broadcast queue, not yet finished (proxy's looper only). */
    private int inFlight;
    /**
     * Per channel no app declares: {last warning's nanoTime, drops since}. An RT app publishes
     * from its start, often before its Android app is installed (the cochlear status, five a
     * second): one warning per channel every {@link #UNDELIVERABLE_LOG_PERIOD_NANOS} with the
     * count, not a line per frame; every frame is still counted in the stats.
     */
    private final Map<String, long[]> undeliverableWarned = new HashMap<>();
    static final long UNDELIVERABLE_LOG_PERIOD_NANOS = TimeUnit.SECONDS.toNanos(10);

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
        Inbound in = new Inbound(fi.channelString(), fi.actionString(), fi.senderString(), fi.senderPriority(),
                Arrays.copyOf(fi.payload().array(), fi.payload().length()),
                fi.correlationId(), fi.rtReceiveNanos(), fi.rtReplyNanos(), frame.seq(), ring, frameReadNanos);
        handler.post(() -> accept(in));
    }

    private void warnUndeliverable(Inbound in) {
        long[] w = undeliverableWarned.get(in.channel);
        if (w == null) {
            w = new long[] {in.acceptNanos - UNDELIVERABLE_LOG_PERIOD_NANOS, 0};
            undeliverableWarned.put(in.channel, w);
        }
        w[1]++;
        if (in.acceptNanos - w[0] >= UNDELIVERABLE_LOG_PERIOD_NANOS) {
            Log.w(ProxyCore.TAG, "no installed app declares channel '" + in.channel + "': dropped " + in.action
                    + (w[1] > 1 ? " and " + (w[1] - 1) + " more frame(s) since the last warning" : "")
                    + " (counted in stats as undeliverable; next warning for this channel in 10 s at the earliest)");
            w[0] = in.acceptNanos;
            w[1] = 0;
        }
    }

    /** Intents handed to the broadcast queue whose delivery has not finished. */
    int pending() {
        return inFlight;
    }

    private void accept(Inbound in) {
        in.acceptNanos = System.nanoTime();
        stats.framesIn++;
        stats.channel(in.channel).in++;
        if (in.priority < 0 || in.priority > 99) { // the wire's rule (xcc.proto): the RT side is outside our trust
            stats.droppedUndeliverable++;
            stats.channel(in.channel).undeliverable++;
            link.countUndeliverable(in.ring);
            Log.w(ProxyCore.TAG, "sender_priority " + in.priority + " of " + in.action + " is not 0..99: dropped");
            return;
        }
        List<String> targets = channels.appsDeclaring(in.channel);
        if (targets == null || targets.isEmpty()) {
            stats.droppedUndeliverable++;
            stats.channel(in.channel).undeliverable++;
            link.countUndeliverable(in.ring);
            warnUndeliverable(in);
            return;
        }
        ProxySender.Outstanding req = sender.takeOutstanding(in.correlationId);
        inFlight++;
        final int[] remaining = {targets.size()};
        final boolean[] dropped = {false};
        // Result receiver without a scheduler: it runs on the main looper right after the last
        // app receiver returned, which is the moment measured; the bookkeeping goes back to the
        // proxy's thread.
        BroadcastReceiver done = new BroadcastReceiver() {
            @Override
            public void onReceive(Context c, Intent i) {
                long called = System.nanoTime();
                // the receivers ran in apps' processes: when the last returned there (that
                // process's word: taken only within what this JVM saw)
                long returned = i.getLongExtra(ProxyContract.EXTRA_RECEIVED_NANOS, -1);
                long now = returned >= in.acceptNanos && returned <= called ? returned : called;
                boolean lost = i.getBooleanExtra(ProxyContract.EXTRA_BROADCAST_DROPPED, false);
                handler.post(() -> delivered(now, lost));
            }

            private void delivered(long delivered, boolean lost) {
                dropped[0] |= lost;
                if (--remaining[0] > 0) {
                    return;
                }
                inFlight--;
                if (dropped[0]) {
                    stats.droppedQueueFull++;
                    return;
                }
                stats.delivered++;
                stats.events.record("broadcast", in.channel, in.action, String.join(",", targets), in.frameReadNanos,
                        delivered);
                if (ProxyCore.TRACE) {
                    Log.i(ProxyCore.TAG, "TRACE frameRead=" + in.frameReadNanos + " ring->proxy=" + (in.acceptNanos - in.frameReadNanos)
                            + " proxy->delivered=" + (delivered - in.acceptNanos)
                            + (req == null ? "" : " appSend->frameWritten=" + (req.frameWrittenNanos - req.appSendNanos)
                                    + " frameWritten->frameRead=" + (in.frameReadNanos - req.frameWrittenNanos)));
                }
                if (req != null) {
                    stats.roundTrips++;
                    latency.record(delivered - req.appSendNanos, req.frameWrittenNanos - req.appSendNanos,
                            delivered - in.frameReadNanos,
                            in.rtReplyNanos >= in.rtReceiveNanos ? in.rtReplyNanos - in.rtReceiveNanos : -1);
                }
            }
        };
        for (String pkg : targets) {
            Intent out = new Intent(in.action);
            out.setPackage(pkg);
            out.putExtra(ProxyContract.EXTRA_CHANNEL, in.channel);
            out.putExtra(ProxyContract.EXTRA_PAYLOAD, in.payload);
            out.putExtra(ProxyContract.EXTRA_SENDER, in.sender); // the RT peer's identity
            out.putExtra(ProxyContract.EXTRA_PRIORITY, in.priority);
            out.putExtra(ProxyContract.EXTRA_SENDER_PRIORITY, in.priority);
            // A reply carries the requesting app's own correlation id, only to that app.
            long id = req != null && req.sender.equals(pkg) ? req.appCorrelation : 0;
            out.putExtra(ProxyContract.EXTRA_CORRELATION_ID, id);
            out.putExtra(ProxyContract.EXTRA_RT_RECEIVE_NANOS, in.rtReceiveNanos);
            out.putExtra(ProxyContract.EXTRA_RT_REPLY_NANOS, in.rtReplyNanos);
            out.putExtra(ProxyContract.EXTRA_SEQ, in.seq);
            context.sendOrderedBroadcast(out, null, done, null, 0, null, null);
        }
    }

    /** An intent from the RT cell on its way to delivery. */
    static final class Inbound {
        final String channel;
        final String action;
        /** The RT component that sent it (the frame's sender). */
        final String sender;
        final int priority;
        final byte[] payload;
        final long correlationId;
        final long rtReceiveNanos;
        final long rtReplyNanos;
        final long seq;
        final int ring;
        final long frameReadNanos;
        long acceptNanos;

        Inbound(String channel, String action, String sender, int priority, byte[] payload, long correlationId,
                long rtReceiveNanos, long rtReplyNanos, long seq, int ring, long frameReadNanos) {
            this.channel = channel;
            this.action = action;
            this.sender = sender;
            this.priority = priority;
            this.payload = payload;
            this.correlationId = correlationId;
            this.rtReceiveNanos = rtReceiveNanos;
            this.rtReplyNanos = rtReplyNanos;
            this.seq = seq;
            this.ring = ring;
            this.frameReadNanos = frameReadNanos;
        }
    }
}
