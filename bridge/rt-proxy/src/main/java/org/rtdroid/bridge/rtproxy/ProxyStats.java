package org.rtdroid.bridge.rtproxy;

import java.util.concurrent.atomic.AtomicLongArray;
import org.rtdroid.json.JsonWriter;

/**
 * The RT-side proxy's own counters, one per reason a frame was taken or dropped. The proxy thread
 * is the only writer (a release store of {@code get + 1}: no lock, no allocation); any thread may
 * read them (the agent's STATS answer, tests). Every inbound drop is counted here AND in the
 * region's consumer line ({@code frames_undeliverable}), so the Android side's CLI sees it too.
 */
public final class ProxyStats {
    /** Inbound frames taken off the Android cell's data rings (valid slots). */
    public static final int FRAMES_IN = 0;
    /** Inbound intents handed to the runtime. */
    public static final int DELIVERED = 1;
    /** Outbound frames written to this cell's data rings. */
    public static final int FRAMES_OUT = 2;
    /** Inbound: the frame did not decode (invalid protobuf or a bound exceeded). */
    public static final int UNDECODABLE = 3;
    /** Inbound: the frame decoded but carries no body. */
    public static final int NO_BODY = 4;
    /** Inbound: a body other than an intent on a data ring (control, deploy chunk, message). */
    public static final int WRONG_KIND = 5;
    /** Inbound: no deployed manifest declares the channel. */
    public static final int UNKNOWN_CHANNEL = 6;
    /** Inbound: the sender (or its priority) is not allowed on the channel. */
    public static final int SENDER_NOT_ALLOWED = 7;
    /** Inbound: the channel's real-time receiver queue was full. */
    public static final int RECEIVER_FULL = 8;
    /** Inbound: the payload is larger than the channel's declared data size. */
    public static final int PAYLOAD_TOO_LARGE = 9;
    /** Inbound: the channel is RT → Android only. */
    public static final int WRONG_DIRECTION = 10;
    /** Inbound: the owning application is not running. */
    public static final int NOT_RUNNING = 11;
    /** Outbound: the Android cell's consumer had not freed a slot (ring full); dropped. */
    public static final int RING_FULL = 12;
    /** Outbound: the Android cell was not READY; dropped (spec: no data frames to a peer not ready). */
    public static final int PEER_NOT_READY = 13;
    /** Outbound: the intent could not be encoded within the frame bounds; dropped. */
    public static final int ENCODE_FAILED = 14;
    /** Android cell restarts seen (epoch changes). */
    public static final int PEER_RESTARTS = 15;
    /** Heartbeats written to this cell's state line. */
    public static final int HEARTBEATS = 16;
    /** Times the proxy used up its CPU budget for a window and slept until the next one. */
    public static final int BUDGET_EXHAUSTED = 17;

    /** Microseconds slept off the CPU budget, in all. */
    public static final int BUDGET_PAUSED_MICROS = 18;

    /** Times the budget enforcer demoted the proxy to SCHED_OTHER: one pass ran on past its budget. */
    public static final int BUDGET_DEMOTIONS = 19;

    /** Fields of this cell's own section that another cell had changed, put back (Region.heal). */
    public static final int REPAIRS = 20;

    static final int COUNT = 21;
    private static final String[] NAMES = {
        "frames_in", "delivered", "frames_out", "undecodable", "no_body", "wrong_kind", "unknown_channel",
        "sender_not_allowed", "receiver_full", "payload_too_large", "wrong_direction", "not_running",
        "ring_full", "peer_not_ready", "encode_failed", "peer_restarts", "heartbeats", "budget_exhausted",
        "budget_paused_us", "budget_demotions", "repairs",
    };

    private final AtomicLongArray counts = new AtomicLongArray(COUNT);

    /** Single writer per counter: the proxy thread (the budget enforcer for budget_demotions). */
    void increment(int counter) {
        counts.lazySet(counter, counts.get(counter) + 1);
    }

    /** Single writer: the proxy thread. */
    void add(int counter, long amount) {
        counts.lazySet(counter, counts.get(counter) + amount);
    }

    public long get(int counter) {
        return counts.get(counter);
    }

    public static String name(int counter) {
        return NAMES[counter];
    }

    /** Inbound frames dropped above the ring, for any reason. */
    public long inboundDropped() {
        long sum = 0;
        for (int c = UNDECODABLE; c <= NOT_RUNNING; c++) {
            sum += counts.get(c);
        }
        return sum;
    }

    /** Outbound intents dropped (ring full, peer not ready, not encodable). */
    public long outboundDropped() {
        return counts.get(RING_FULL) + counts.get(PEER_NOT_READY) + counts.get(ENCODE_FAILED);
    }

    /** Non-real-time: every counter as JSON. */
    public String toJson() {
        JsonWriter w = new JsonWriter().beginObject();
        for (int c = 0; c < COUNT; c++) {
            w.field(NAMES[c], counts.get(c));
        }
        return w.endObject().toString();
    }

    @Override
    public String toString() {
        return toJson();
    }
}
