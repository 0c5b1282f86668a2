package org.rtdroid.android.app;

import android.content.Intent;
import org.rtdroid.contract.Payload;
import org.rtdroid.contract.ProtoWire;

/**
 * One of the proxy's broadcasts as an app sees it, read by {@link ProxyClient#read}: the action,
 * the channel, the RT peer that sent it, the typed payload ({@link #read(Payload)}), and, when it
 * answers one of the app's own sends, the round trip. A refusal of one of the app's sends is an
 * RtIntent too ({@link #refused()}, {@link #reason()}).
 */
public final class RtIntent {
    private Intent intent;
    private byte[] payload;
    private long correlationId;
    private long roundTripNanos;

    RtIntent() {
    }

    RtIntent reset(Intent intent, long roundTripNanos) {
        this.intent = intent;
        byte[] p = intent.getByteArrayExtra(ProxyIntents.EXTRA_PAYLOAD);
        this.payload = p == null ? new byte[0] : p;
        this.correlationId = intent.getLongExtra(ProxyIntents.EXTRA_CORRELATION_ID, 0);
        this.roundTripNanos = roundTripNanos;
        return this;
    }

    public String action() {
        return intent.getAction();
    }

    /** Whether its action is {@code action}. */
    public boolean is(String action) {
        return action.equals(intent.getAction());
    }

    /** The cross-context channel it came on. */
    public String channel() {
        return intent.getStringExtra(ProxyIntents.EXTRA_CHANNEL);
    }

    /** The peer that sent it: the RT component's sender name (null on a refusal, which the proxy sends). */
    public String peer() {
        return refused() ? null : intent.getStringExtra(ProxyIntents.EXTRA_SENDER);
    }

    /** Its priority class on the wire (0..99). */
    public int priority() {
        return intent.getIntExtra(ProxyIntents.EXTRA_PRIORITY, 0);
    }

    /** The id of the app's own send it answers (or refuses), 0 if none. */
    public long correlationId() {
        return correlationId;
    }

    /** From the app's send to this answer (System.nanoTime()), 0 if it answers none of the app's sends. */
    public long roundTripNanos() {
        return roundTripNanos;
    }

    /** Whether the proxy refused one of the app's sends ({@link #reason()} says why). */
    public boolean refused() {
        return ProxyIntents.ACTION_REFUSED.equals(intent.getAction());
    }

    /** Why the proxy refused the send, or null. */
    public String reason() {
        return intent.getStringExtra(ProxyIntents.EXTRA_REASON);
    }

    /** The payload's encoded bytes. */
    public byte[] payload() {
        return payload;
    }

    /**
     * Decodes the payload into {@code into} (the app contract's message for this action):
     * true when it is one, false (logged by the caller if it cares) when it is not.
     */
    public boolean read(Payload into) {
        return into.decode(payload, 0, payload.length) == ProtoWire.OK;
    }

    /** The broadcast itself, for anything else it carries. */
    public Intent intent() {
        return intent;
    }
}
