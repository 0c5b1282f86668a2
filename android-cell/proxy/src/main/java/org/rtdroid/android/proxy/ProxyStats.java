package org.rtdroid.android.proxy;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.rtdroid.json.JsonWriter;

/** The proxy's counters. Written on the proxy's looper only; read (racily, for reports) by others. */
final class ProxyStats {
    volatile long framesIn;
    volatile long framesOut;
    volatile long delivered;
    volatile long refused;
    volatile long droppedFull;
    volatile long droppedUndeliverable;
    volatile long droppedQueueFull;
    volatile long roundTrips;
    final ConcurrentHashMap<String, Channel> channels = new ConcurrentHashMap<>();
    /** The recent frames themselves, with their times (traces). */
    final ProxyEvents events = new ProxyEvents();

    /** Per-channel counts; the number of channels is bounded by what manifests declare plus refusals. */
    Channel channel(String name) {
        Channel c = channels.get(name);
        if (c == null) {
            if (channels.size() >= 256) {
                name = "(other)";
            }
            c = channels.computeIfAbsent(name, k -> new Channel());
        }
        return c;
    }

    static final class Channel {
        volatile long out;
        volatile long in;
        volatile long refused;
        volatile long undeliverable;
    }

    /** The counters, the link's state and both directions' ring counters as one JSON object. */
    String toJson(RtLink link, int pendingDeliveries) {
        JsonWriter w = new JsonWriter(512);
        synchronized (this) {
            w.beginObject()
                    .field("connected", link.connected())
                    .field("link", orEmpty(link.describe()))
                    .field("region", orEmpty(link.regionPath()))
                    .field("framesIn", framesIn)
                    .field("framesOut", framesOut)
                    .field("delivered", delivered)
                    .field("refused", refused)
                    .field("droppedFull", droppedFull)
                    .field("droppedUndeliverable", droppedUndeliverable)
                    .field("droppedQueueFull", droppedQueueFull)
                    .field("droppedUndecodable", link.undecodable())
                    .field("roundTrips", roundTrips)
                    .field("peerRestarts", link.peerRestarts())
                    .field("attaches", link.attaches())
                    .field("pendingDeliveries", pendingDeliveries)
                    .name("channels").beginObject();
            for (Map.Entry<String, Channel> e : new TreeMap<>(channels).entrySet()) {
                Channel c = e.getValue();
                w.name(e.getKey()).beginObject()
                        .field("out", c.out)
                        .field("in", c.in)
                        .field("refused", c.refused)
                        .field("undeliverable", c.undeliverable)
                        .endObject();
            }
            w.endObject().rawField("rings", link.ringsJson()).endObject();
        }
        return w.toString();
    }

    /** Readers expect strings here: a link that has no status or region yet reports "". */
    private static String orEmpty(String s) {
        return s == null ? "" : s;
    }
}
