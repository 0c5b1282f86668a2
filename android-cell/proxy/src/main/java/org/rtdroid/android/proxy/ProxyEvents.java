package org.rtdroid.android.proxy;

import org.rtdroid.json.JsonWriter;

/**
 * The proxy's recent traffic, for traces ({@code rtdroid rt trace}): each frame it wrote for an
 * app (from the app's send to the frame on the ring) and each RT frame it broadcast (from its read
 * off the ring to the last receiving app's return), with the cell's CLOCK_MONOTONIC times
 * ({@code System.nanoTime}). A fixed ring of {@link #CAPACITY} events, the oldest overwritten.
 */
final class ProxyEvents {
    static final int CAPACITY = 4096;

    private final String[] kind = new String[CAPACITY];
    private final String[] channel = new String[CAPACITY];
    private final String[] action = new String[CAPACITY];
    private final String[] app = new String[CAPACITY];
    private final long[] begin = new long[CAPACITY];
    private final long[] end = new long[CAPACITY];
    private long count;

    /** @param kind {@code send} (app to RT) or {@code broadcast} (RT to apps) */
    synchronized void record(String kind, String channel, String action, String app, long beginNanos, long endNanos) {
        int i = (int) (count % CAPACITY);
        this.kind[i] = kind;
        this.channel[i] = channel;
        this.action[i] = action;
        this.app[i] = app;
        begin[i] = beginNanos;
        end[i] = endNanos;
        count++;
    }

    /** The events that ended at or after {@code sinceNanos}, oldest first, with the clock's now. */
    synchronized String toJson(long sinceNanos) {
        JsonWriter w = new JsonWriter().beginObject().field("now_nanos", System.nanoTime()).name("events").beginArray();
        for (long k = Math.max(0, count - CAPACITY); k < count; k++) {
            int i = (int) (k % CAPACITY);
            if (end[i] < sinceNanos) {
                continue;
            }
            w.beginObject().field("kind", kind[i]).field("channel", channel[i]).field("action", action[i])
                    .field("app", app[i]).field("begin_nanos", begin[i]).field("end_nanos", end[i]).endObject();
        }
        return w.endArray().endObject().toString();
    }
}
