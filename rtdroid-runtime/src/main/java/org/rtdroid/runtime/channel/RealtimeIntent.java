package org.rtdroid.runtime.channel;

import java.nio.charset.StandardCharsets;
import org.rtdroid.xcc.XccBounds;

/**
 * A pre-allocated, fixed-size message or intent of a real-time channel (a message is an intent
 * with exactly one recipient). Carries an action, three ints in the manner of Android's
 * {@code Message} ({@code what}, {@code arg1}, {@code arg2}) and a fixed-capacity byte payload (the
 * channel's declared data size), with little-endian accessors for primitives: the application's
 * content. The sender's identity (name, priority; for an intent from the Android cell the Android
 * sender's name and wire priority) and the cross-context transport fields (correlation id, receive
 * time) are stamped by the runtime and read-only: a component answers a cross-context request with
 * {@code CrossContextPublisher.reply}, which carries them back. Instances belong to their channel:
 * senders fill one inside {@link MessageClosure#genMsg}, receivers read one inside their callback;
 * neither keeps it.
 */
public final class RealtimeIntent {
    // an intent may cross to the Android cell: the wire's bounds (XccBounds, from bridge/proto/xcc.options)
    public static final int MAX_ACTION_BYTES = XccBounds.MAX_INTENT_ACTION_BYTES;
    public static final int MAX_SENDER_BYTES = XccBounds.MAX_INTENT_SENDER_BYTES;

    private final String channelName;
    private final byte[] action = new byte[MAX_ACTION_BYTES];
    private int actionLength;
    private final byte[] sender = new byte[MAX_SENDER_BYTES];
    private int senderLength;
    private int senderPriority;
    private int crossContextSenderPriority;
    private long correlationId;
    private long sendNanos;
    private long crossContextReceiveNanos;
    public int what;
    public int arg1;
    public int arg2;
    private final byte[] payload;
    private int payloadLength;

    public RealtimeIntent(String channelName, int payloadCapacityBytes) {
        this.channelName = channelName;
        this.payload = new byte[payloadCapacityBytes];
    }

    /** The channel this intent belongs to (a constant string, no allocation). */
    public String channelName() { return channelName; }

    public void clear() {
        actionLength = 0;
        senderLength = 0;
        senderPriority = 0;
        crossContextSenderPriority = 0;
        correlationId = 0;
        sendNanos = 0;
        crossContextReceiveNanos = 0;
        what = 0;
        arg1 = 0;
        arg2 = 0;
        payloadLength = 0;
    }

    /** Copies every field of {@code o} (same or larger payload capacity required). */
    public void copyFrom(RealtimeIntent o) {
        System.arraycopy(o.action, 0, action, 0, o.actionLength);
        actionLength = o.actionLength;
        System.arraycopy(o.sender, 0, sender, 0, o.senderLength);
        senderLength = o.senderLength;
        senderPriority = o.senderPriority;
        crossContextSenderPriority = o.crossContextSenderPriority;
        correlationId = o.correlationId;
        sendNanos = o.sendNanos;
        crossContextReceiveNanos = o.crossContextReceiveNanos;
        what = o.what;
        arg1 = o.arg1;
        arg2 = o.arg2;
        setPayload(o.payload, 0, o.payloadLength);
    }

    // ---- action ----
    public byte[] action() { return action; }
    public int actionLength() { return actionLength; }
    public RealtimeIntent setAction(CharSequence ascii) {
        int n = ascii.length();
        if (n > MAX_ACTION_BYTES) {
            throw new IllegalArgumentException("action longer than " + MAX_ACTION_BYTES + " bytes");
        }
        for (int i = 0; i < n; i++) {
            action[i] = (byte) ascii.charAt(i);
        }
        actionLength = n;
        return this;
    }
    public RealtimeIntent setAction(byte[] src, int off, int len) {
        if (len < 0 || len > MAX_ACTION_BYTES) {
            throw new IllegalArgumentException("action longer than " + MAX_ACTION_BYTES + " bytes");
        }
        System.arraycopy(src, off, action, 0, len);
        actionLength = len;
        return this;
    }
    /** Allocation-free comparison with an ASCII action name. */
    public boolean hasAction(CharSequence ascii) {
        if (ascii.length() != actionLength) {
            return false;
        }
        for (int i = 0; i < actionLength; i++) {
            if (action[i] != (byte) ascii.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    // ---- sender (set by the runtime) ----
    public byte[] sender() { return sender; }
    public int senderLength() { return senderLength; }
    /** The priority the sender's endpoint queues at (the cross-context router's: the cell's lowest). */
    public int senderPriority() { return senderPriority; }
    /** For intents from the Android cell: the Android sender's priority (the wire's 0..99); 0 otherwise. */
    public int crossContextSenderPriority() { return crossContextSenderPriority; }
    /** For intents from the Android cell: the request's correlation id; {@code reply} carries it back. */
    public long correlationId() { return correlationId; }
    /** CLOCK_MONOTONIC when the message was queued. */
    public long sendNanos() { return sendNanos; }

    /**
     * For intents that came from the Android cell: when the RT-side proxy took the request off the
     * ring (RT cell clock); a reply copies it into its outbound intent so the round trip can be
     * split. 0 otherwise.
     */
    public long crossContextReceiveNanos() { return crossContextReceiveNanos; }

    /**
     * Runtime services that deliver intents outside a channel (the alarm manager) stamp the
     * sender's name and priority and the time the intent is due ({@link #sendNanos}) here.
     */
    public void stampOrigin(byte[] name, int priority, long nanos) {
        stampSender(name, priority, nanos);
    }

    void stampSender(byte[] name, int priority, long nanos) {
        int n = Math.min(name.length, MAX_SENDER_BYTES);
        System.arraycopy(name, 0, sender, 0, n);
        senderLength = n;
        senderPriority = priority;
        sendNanos = nanos;
    }

    /** The relayed request's origin ({@link CrossContextOrigin}), over the relay endpoint's name. */
    void stampCrossContext(byte[] name, int nameLength, int priority, long correlation, long receiveNanos) {
        System.arraycopy(name, 0, sender, 0, nameLength);
        senderLength = nameLength;
        crossContextSenderPriority = priority;
        correlationId = correlation;
        crossContextReceiveNanos = receiveNanos;
    }

    /** Diagnostic only (allocates). */
    public String senderName() { return new String(sender, 0, senderLength, StandardCharsets.UTF_8); }

    /** Diagnostic only (allocates). */
    public String actionName() { return new String(action, 0, actionLength, StandardCharsets.UTF_8); }

    // ---- payload ----
    /** The payload's backing array; its length is the channel's declared data size. */
    public byte[] payload() { return payload; }
    public int payloadCapacity() { return payload.length; }
    public int payloadLength() { return payloadLength; }
    public RealtimeIntent setPayloadLength(int n) {
        if (n < 0 || n > payload.length) {
            throw new IllegalArgumentException("payload length " + n + " exceeds the channel's data size " + payload.length);
        }
        payloadLength = n;
        return this;
    }
    public RealtimeIntent setPayload(byte[] src, int off, int len) {
        if (len < 0 || len > payload.length) {
            throw new IllegalArgumentException("payload of " + len + " B exceeds the channel's data size " + payload.length);
        }
        System.arraycopy(src, off, payload, 0, len);
        payloadLength = len;
        return this;
    }

    // Little-endian primitives (the cross-context payloads are little-endian too). Writing extends
    // the payload length to cover what was written.
    public int getInt(int off) {
        return (payload[off] & 0xff) | (payload[off + 1] & 0xff) << 8 | (payload[off + 2] & 0xff) << 16
                | (payload[off + 3] & 0xff) << 24;
    }
    public long getLong(int off) { return (getInt(off) & 0xffffffffL) | ((long) getInt(off + 4)) << 32; }
    public float getFloat(int off) { return Float.intBitsToFloat(getInt(off)); }
    public RealtimeIntent putInt(int off, int v) {
        payload[off] = (byte) v;
        payload[off + 1] = (byte) (v >>> 8);
        payload[off + 2] = (byte) (v >>> 16);
        payload[off + 3] = (byte) (v >>> 24);
        if (off + 4 > payloadLength) {
            payloadLength = off + 4;
        }
        return this;
    }
    public RealtimeIntent putLong(int off, long v) {
        putInt(off, (int) v);
        return putInt(off + 4, (int) (v >>> 32));
    }
    public RealtimeIntent putFloat(int off, float v) { return putInt(off, Float.floatToRawIntBits(v)); }
}
