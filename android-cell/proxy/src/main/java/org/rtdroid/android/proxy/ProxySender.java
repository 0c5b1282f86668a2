package org.rtdroid.android.proxy;

import android.content.Context;
import android.content.Intent;
import android.util.Log;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import org.rtdroid.bridge.codec.Frame;
import org.rtdroid.bridge.codec.FrameCodec;

/**
 * Android → RT on the proxy's looper: validates a SEND intent's extras and the sender's channel
 * declaration, encodes the Intent frame (the proxy's own correlation id on the wire) and offers
 * it on the data ring of the sender's priority. A refusal is logged, counted and answered with
 * {@link ProxyContract#ACTION_REFUSED} to the sender. Remembers each request until its reply
 * comes back, for the round-trip measurement.
 */
final class ProxySender {
    /** Bound of requests awaiting a reply (round-trip bookkeeping); the eldest is forgotten. */
    static final int MAX_OUTSTANDING = 1024;

    private final Context context;
    private final RtLink link;
    private final ChannelTable channels;
    private final ProxyStats stats;
    private final Frame txFrame = new Frame();
    private final byte[] txBuffer = new byte[4096];
    private long nextWireId = 1;
    private final Map<Long, Outstanding> outstanding = new LinkedHashMap<Long, Outstanding>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Outstanding> eldest) {
            return size() > MAX_OUTSTANDING;
        }
    };

    /** A request sent to the RT cell whose reply has not come back yet. */
    static final class Outstanding {
        final String sender;
        final long appCorrelation;
        final long appSendNanos;
        final long frameWrittenNanos;

        Outstanding(String sender, long appCorrelation, long appSendNanos, long frameWrittenNanos) {
            this.sender = sender;
            this.appCorrelation = appCorrelation;
            this.appSendNanos = appSendNanos;
            this.frameWrittenNanos = frameWrittenNanos;
        }
    }

    ProxySender(Context context, RtLink link, ChannelTable channels, ProxyStats stats) {
        this.context = context;
        this.link = link;
        this.channels = channels;
        this.stats = stats;
    }

    /** Handles one SEND intent (proxy's looper). */
    void send(Intent intent) {
        // The sender is who called, as the cell's system server saw it; what the app claims is checked.
        String sender = intent.getStringExtra(ProxyContract.EXTRA_CALLING_PACKAGE);
        String claimed = intent.getStringExtra(ProxyContract.EXTRA_SENDER);
        String channel = intent.getStringExtra(ProxyContract.EXTRA_CHANNEL);
        String action = intent.getStringExtra(ProxyContract.EXTRA_ACTION);
        byte[] payload = intent.getByteArrayExtra(ProxyContract.EXTRA_PAYLOAD);
        int priority = intent.getIntExtra(ProxyContract.EXTRA_PRIORITY, -1);
        long appCorrelation = intent.getLongExtra(ProxyContract.EXTRA_CORRELATION_ID, 0);
        long appSendNanos = intent.getLongExtra(ProxyContract.EXTRA_SEND_NANOS, 0);
        long received = System.nanoTime();

        String problem = sender == null
                ? "no calling identity: a send reaches the proxy through the cell's startService, which stamps it"
                : claimed != null && !claimed.equals(sender)
                ? "sender '" + claimed + "' is not the calling package '" + sender + "'"
                : validate(sender, channel, action, payload, priority);
        if (problem == null && !channels.declares(sender, channel)) {
            problem = "package " + sender + " does not declare channel '" + channel
                    + "' (AndroidManifest meta-data " + ProxyContract.META_CHANNELS + ")";
        }
        if (problem == null && !link.connected()) {
            problem = "RT cell not connected: " + link.describe();
        }
        long wireId = 0;
        if (problem == null) {
            wireId = nextWireId++;
            problem = offer(wireId, received, action, channel, sender, priority, payload);
        }
        if (problem != null) {
            refuse(sender, channel, action, appCorrelation, problem);
            return;
        }
        long written = System.nanoTime();
        if (ProxyCore.TRACE) {
            Log.i(ProxyCore.TAG, "TRACE hop=" + (received - appSendNanos) + " encode+offer=" + (written - received));
        }
        stats.framesOut++;
        stats.channel(channel).out++;
        stats.events.record("send", channel, action, sender, appSendNanos != 0 ? appSendNanos : received, written);
        outstanding.put(wireId, new Outstanding(sender, appCorrelation,
                appSendNanos != 0 ? appSendNanos : received, written));
    }

    /** Encodes the frame and offers it on the ring; the problem, or null when it was written. */
    private String offer(long wireId, long received, String action, String channel, String sender, int priority,
            byte[] payload) {
        Frame f = txFrame.clear();
        f.seq(wireId).sendTimeNanos(received);
        Frame.Intent fi = f.selectIntent();
        fi.action(action).channel(channel).sender(sender).senderPriority(priority).correlationId(wireId);
        fi.payload().set(payload, 0, payload.length);
        int len = FrameCodec.encode(f, txBuffer, 0);
        if (len < 0) {
            return "frame encoding failed: " + FrameCodec.describe(len);
        }
        int ring = link.send(txBuffer, len, priority);
        if (ring < 0) {
            return "RT cell not connected: " + link.describe();
        }
        if (ring == 0) {
            stats.droppedFull++;
            return "data ring for priority " + priority + " is full (frame dropped)";
        }
        return null;
    }

    /** The request a reply with this wire correlation id answers, forgotten from now on; or null. */
    Outstanding takeOutstanding(long wireCorrelationId) {
        return outstanding.remove(wireCorrelationId);
    }

    private static String validate(String sender, String channel, String action, byte[] payload, int priority) {
        if (sender == null || sender.isEmpty()) {
            return "missing extra '" + ProxyContract.EXTRA_SENDER + "' (the sending package)";
        }
        if (utf8(sender) > ProxyContract.MAX_SENDER_BYTES) {
            return "sender '" + sender + "' longer than " + ProxyContract.MAX_SENDER_BYTES + " bytes";
        }
        if (channel == null || channel.isEmpty()) {
            return "missing extra '" + ProxyContract.EXTRA_CHANNEL + "'";
        }
        if (utf8(channel) > ProxyContract.MAX_CHANNEL_BYTES) {
            return "channel longer than " + ProxyContract.MAX_CHANNEL_BYTES + " bytes";
        }
        if (action == null || action.isEmpty()) {
            return "missing extra '" + ProxyContract.EXTRA_ACTION + "'";
        }
        if (utf8(action) > ProxyContract.MAX_ACTION_BYTES) {
            return "action longer than " + ProxyContract.MAX_ACTION_BYTES + " bytes";
        }
        if (payload == null) {
            return "missing extra '" + ProxyContract.EXTRA_PAYLOAD + "' (byte[])";
        }
        if (payload.length > ProxyContract.MAX_PAYLOAD_BYTES) {
            return "payload of " + payload.length + " bytes exceeds " + ProxyContract.MAX_PAYLOAD_BYTES;
        }
        if (priority < 0 || priority > 99) {
            return "extra '" + ProxyContract.EXTRA_PRIORITY + "' must be an int 0..99, was " + priority;
        }
        return null;
    }

    private static int utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    private void refuse(String sender, String channel, String action, long correlation, String reason) {
        stats.refused++;
        if (channel != null) {
            stats.channel(channel).refused++;
        }
        Log.e(ProxyCore.TAG, "refused send from " + sender + " on channel '" + channel + "' action " + action + ": "
                + reason);
        if (sender == null || sender.isEmpty()) {
            return;
        }
        Intent r = new Intent(ProxyContract.ACTION_REFUSED);
        r.setPackage(sender);
        r.putExtra(ProxyContract.EXTRA_CHANNEL, channel);
        r.putExtra(ProxyContract.EXTRA_ACTION, action);
        r.putExtra(ProxyContract.EXTRA_CORRELATION_ID, correlation);
        r.putExtra(ProxyContract.EXTRA_REASON, reason);
        context.sendBroadcast(r);
    }
}
