package org.rtdroid.runtime.xcc;

import org.rtdroid.xcc.XccBounds;

/**
 * A mutable, pre-sized holder for one intent crossing between the Android cell and the RT cell.
 *
 * <p>The RT-side proxy keeps one (or a few) of these for its whole life and refills them for every
 * frame; the runtime copies out of / into them, so neither side ever allocates on the real-time
 * path. Strings are carried as raw bytes (ASCII/UTF-8, as on the wire) with explicit lengths.
 * Bounds are the wire's ({@link XccBounds}, generated from {@code bridge/proto/xcc.options}).
 */
public final class CrossContextIntent {
    public static final int MAX_CHANNEL_BYTES = XccBounds.MAX_INTENT_CHANNEL_BYTES;
    public static final int MAX_ACTION_BYTES = XccBounds.MAX_INTENT_ACTION_BYTES;
    public static final int MAX_SENDER_BYTES = XccBounds.MAX_INTENT_SENDER_BYTES;
    public static final int MAX_PAYLOAD_BYTES = XccBounds.MAX_INTENT_PAYLOAD_BYTES;

    private final byte[] channel = new byte[MAX_CHANNEL_BYTES];
    private int channelLength;
    private final byte[] action = new byte[MAX_ACTION_BYTES];
    private int actionLength;
    private final byte[] sender = new byte[MAX_SENDER_BYTES];
    private int senderLength;
    private int senderPriority;
    private long correlationId;
    private final byte[] payload = new byte[MAX_PAYLOAD_BYTES];
    private int payloadLength;
    private long rtReceiveNanos;

    /** Resets every field to empty / zero. */
    public CrossContextIntent clear() {
        channelLength = 0;
        actionLength = 0;
        senderLength = 0;
        senderPriority = 0;
        correlationId = 0;
        payloadLength = 0;
        rtReceiveNanos = 0;
        return this;
    }

    /** Copies every field of {@code other} into this holder (no allocation). */
    public CrossContextIntent copyFrom(CrossContextIntent other) {
        System.arraycopy(other.channel, 0, channel, 0, other.channelLength);
        channelLength = other.channelLength;
        System.arraycopy(other.action, 0, action, 0, other.actionLength);
        actionLength = other.actionLength;
        System.arraycopy(other.sender, 0, sender, 0, other.senderLength);
        senderLength = other.senderLength;
        senderPriority = other.senderPriority;
        correlationId = other.correlationId;
        System.arraycopy(other.payload, 0, payload, 0, other.payloadLength);
        payloadLength = other.payloadLength;
        rtReceiveNanos = other.rtReceiveNanos;
        return this;
    }

    // ---- channel -------------------------------------------------------------------------
    /** The backing array of the channel name; valid bytes are {@code [0, channelLength())}. */
    public byte[] channel() { return channel; }
    public int channelLength() { return channelLength; }
    /** Copies a channel name in. @throws IllegalArgumentException if longer than {@link #MAX_CHANNEL_BYTES}. */
    public CrossContextIntent setChannel(byte[] src, int off, int len) {
        channelLength = copyBounded(src, off, len, channel, "channel");
        return this;
    }
    /** ASCII convenience (no allocation: chars are copied one by one). */
    public CrossContextIntent setChannel(CharSequence ascii) {
        channelLength = copyAscii(ascii, channel, "channel");
        return this;
    }
    public boolean channelEquals(CharSequence ascii) { return asciiEquals(channel, channelLength, ascii); }

    // ---- action --------------------------------------------------------------------------
    public byte[] action() { return action; }
    public int actionLength() { return actionLength; }
    public CrossContextIntent setAction(byte[] src, int off, int len) {
        actionLength = copyBounded(src, off, len, action, "action");
        return this;
    }
    public CrossContextIntent setAction(CharSequence ascii) {
        actionLength = copyAscii(ascii, action, "action");
        return this;
    }
    public boolean actionEquals(CharSequence ascii) { return asciiEquals(action, actionLength, ascii); }

    // ---- sender --------------------------------------------------------------------------
    public byte[] sender() { return sender; }
    public int senderLength() { return senderLength; }
    public CrossContextIntent setSender(byte[] src, int off, int len) {
        senderLength = copyBounded(src, off, len, sender, "sender");
        return this;
    }
    public CrossContextIntent setSender(CharSequence ascii) {
        senderLength = copyAscii(ascii, sender, "sender");
        return this;
    }
    public boolean senderEquals(CharSequence ascii) { return asciiEquals(sender, senderLength, ascii); }

    // ---- scalars -------------------------------------------------------------------------
    /** Sender priority 0..99, higher is more urgent (as on the wire). */
    public int senderPriority() { return senderPriority; }
    public CrossContextIntent setSenderPriority(int p) { senderPriority = p; return this; }
    public long correlationId() { return correlationId; }
    public CrossContextIntent setCorrelationId(long id) { correlationId = id; return this; }
    /** RT cell CLOCK_MONOTONIC when the proxy took the request off the ring (0 if unset). */
    public long rtReceiveNanos() { return rtReceiveNanos; }
    public CrossContextIntent setRtReceiveNanos(long nanos) { rtReceiveNanos = nanos; return this; }

    // ---- payload -------------------------------------------------------------------------
    /** The backing payload array ({@link #MAX_PAYLOAD_BYTES} bytes); valid bytes are {@code [0, payloadLength())}. */
    public byte[] payload() { return payload; }
    public int payloadLength() { return payloadLength; }
    public CrossContextIntent setPayload(byte[] src, int off, int len) {
        payloadLength = copyBounded(src, off, len, payload, "payload");
        return this;
    }
    /** Declares how many bytes of {@link #payload()} are valid after writing into it directly. */
    public CrossContextIntent setPayloadLength(int len) {
        if (len < 0 || len > MAX_PAYLOAD_BYTES) {
            throw new IllegalArgumentException("payload length out of range 0.." + MAX_PAYLOAD_BYTES);
        }
        payloadLength = len;
        return this;
    }

    // Little-endian payload accessors (bridge/docs/protocols.md: payloads are little-endian).
    public int payloadInt(int offset) {
        return (payload[offset] & 0xff) | (payload[offset + 1] & 0xff) << 8
                | (payload[offset + 2] & 0xff) << 16 | (payload[offset + 3] & 0xff) << 24;
    }
    public long payloadLong(int offset) {
        return (payloadInt(offset) & 0xffffffffL) | ((long) payloadInt(offset + 4)) << 32;
    }
    public float payloadFloat(int offset) { return Float.intBitsToFloat(payloadInt(offset)); }
    public CrossContextIntent putPayloadInt(int offset, int v) {
        payload[offset] = (byte) v;
        payload[offset + 1] = (byte) (v >>> 8);
        payload[offset + 2] = (byte) (v >>> 16);
        payload[offset + 3] = (byte) (v >>> 24);
        return this;
    }
    public CrossContextIntent putPayloadLong(int offset, long v) {
        putPayloadInt(offset, (int) v);
        return putPayloadInt(offset + 4, (int) (v >>> 32));
    }
    public CrossContextIntent putPayloadFloat(int offset, float v) {
        return putPayloadInt(offset, Float.floatToRawIntBits(v));
    }

    // ---- helpers -------------------------------------------------------------------------
    private static int copyBounded(byte[] src, int off, int len, byte[] dst, String field) {
        if (len < 0 || len > dst.length) {
            throw new IllegalArgumentException(field + " length out of range 0.." + dst.length);
        }
        System.arraycopy(src, off, dst, 0, len);
        return len;
    }

    private static int copyAscii(CharSequence s, byte[] dst, String field) {
        int len = s.length();
        if (len > dst.length) {
            throw new IllegalArgumentException(field + " longer than " + dst.length + " bytes");
        }
        for (int i = 0; i < len; i++) {
            dst[i] = (byte) s.charAt(i);
        }
        return len;
    }

    static boolean asciiEquals(byte[] bytes, int len, CharSequence s) {
        if (s.length() != len) {
            return false;
        }
        for (int i = 0; i < len; i++) {
            if (bytes[i] != (byte) s.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Diagnostic text (allocates: never call on a real-time path). */
    @Override
    public String toString() {
        return "CrossContextIntent{channel=" + new String(channel, 0, channelLength, java.nio.charset.StandardCharsets.UTF_8)
                + ", action=" + new String(action, 0, actionLength, java.nio.charset.StandardCharsets.UTF_8)
                + ", sender=" + new String(sender, 0, senderLength, java.nio.charset.StandardCharsets.UTF_8)
                + ", senderPriority=" + senderPriority + ", correlationId=" + correlationId
                + ", payloadLength=" + payloadLength + ", rtReceiveNanos=" + rtReceiveNanos + "}";
    }
}
