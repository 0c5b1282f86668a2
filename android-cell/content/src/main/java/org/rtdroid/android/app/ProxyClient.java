package org.rtdroid.android.app;

import android.content.Context;
import android.content.Intent;
import java.util.Arrays;
import org.rtdroid.contract.Payload;
import org.rtdroid.contract.PayloadBounds;
import org.rtdroid.contract.ProtoWire;

/**
 * An app's road to the RT cell through the Android-side proxy: {@link #send} encodes an app
 * contract's payload and starts the proxy with it on the payload's channel and priority class,
 * giving it a correlation id and its send time; {@link #read} turns the proxy's broadcasts into
 * {@link RtIntent}s, matching an answer to its send for the round trip, as {@code reply()} does
 * on the RT side. One per activity or service, on its main thread.
 */
public final class ProxyClient {
    /** Outstanding sends remembered for their round trip (oldest forgotten first). */
    static final int PENDING = 64;

    private final Context context;
    private final byte[] scratch = new byte[PayloadBounds.MAX_PAYLOAD_BYTES];
    private final long[] pendingIds = new long[PENDING];
    private final long[] pendingSendNanos = new long[PENDING];
    private final RtIntent received = new RtIntent();
    private long nextCorrelationId = 1;

    public ProxyClient(Context context) {
        this.context = context;
    }

    /** Sends {@code payload} with {@code action} in the priority class its contract gives it. */
    public long send(Payload payload, String action) {
        return send(payload, action, payload.priority());
    }

    /**
     * Sends {@code payload} on its channel with {@code action} at {@code priority} (0..99); the
     * proxy's answer or refusal comes back as a broadcast carrying the returned correlation id.
     *
     * @throws IllegalArgumentException if the payload does not encode (a string that is not UTF-8)
     */
    public long send(Payload payload, String action, int priority) {
        int n = payload.encode(scratch, 0);
        if (n < 0) {
            throw new IllegalArgumentException(payload.channel() + ": " + ProtoWire.describe(n));
        }
        long correlationId = nextCorrelationId++;
        long sendNanos = System.nanoTime();
        int slot = (int) (correlationId % PENDING);
        pendingIds[slot] = correlationId;
        pendingSendNanos[slot] = sendNanos;
        Intent intent = new Intent(ProxyIntents.ACTION_SEND);
        intent.setClassName(ProxyIntents.PROXY_PACKAGE, ProxyIntents.PROXY_SERVICE);
        intent.putExtra(ProxyIntents.EXTRA_CHANNEL, payload.channel());
        intent.putExtra(ProxyIntents.EXTRA_ACTION, action);
        intent.putExtra(ProxyIntents.EXTRA_PAYLOAD, Arrays.copyOf(scratch, n));
        intent.putExtra(ProxyIntents.EXTRA_PRIORITY, priority);
        intent.putExtra(ProxyIntents.EXTRA_CORRELATION_ID, correlationId);
        intent.putExtra(ProxyIntents.EXTRA_SENDER, context.getPackageName());
        intent.putExtra(ProxyIntents.EXTRA_SEND_NANOS, sendNanos);
        context.startService(intent);
        return correlationId;
    }

    /**
     * One of the proxy's broadcasts, read at {@code nowNanos} (System.nanoTime() when it arrived).
     * The returned RtIntent is reused by the next call.
     */
    public RtIntent read(Intent broadcast, long nowNanos) {
        long id = broadcast.getLongExtra(ProxyIntents.EXTRA_CORRELATION_ID, 0);
        long roundTrip = 0;
        if (id > 0) {
            int slot = (int) (id % PENDING);
            if (pendingIds[slot] == id) {
                pendingIds[slot] = 0;
                roundTrip = nowNanos - pendingSendNanos[slot];
            }
        }
        return received.reset(broadcast, roundTrip);
    }
}
