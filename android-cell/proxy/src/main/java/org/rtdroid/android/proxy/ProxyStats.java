package org.rtdroid.android.proxy;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

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
        StringBuilder sb = new StringBuilder(512);
        synchronized (this) {
            sb.append('{');
            sb.append("\"connected\":").append(link.connected());
            sb.append(",\"link\":\"").append(escape(link.describe())).append('"');
            sb.append(",\"region\":\"").append(escape(link.regionPath())).append('"');
            sb.append(",\"framesIn\":").append(framesIn);
            sb.append(",\"framesOut\":").append(framesOut);
            sb.append(",\"delivered\":").append(delivered);
            sb.append(",\"refused\":").append(refused);
            sb.append(",\"droppedFull\":").append(droppedFull);
            sb.append(",\"droppedUndeliverable\":").append(droppedUndeliverable);
            sb.append(",\"droppedQueueFull\":").append(droppedQueueFull);
            sb.append(",\"droppedUndecodable\":").append(link.undecodable());
            sb.append(",\"roundTrips\":").append(roundTrips);
            sb.append(",\"peerRestarts\":").append(link.peerRestarts());
            sb.append(",\"attaches\":").append(link.attaches());
            sb.append(",\"pendingDeliveries\":").append(pendingDeliveries);
            sb.append(",\"channels\":{");
            boolean first = true;
            for (Map.Entry<String, Channel> e : new TreeMap<>(channels).entrySet()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                Channel c = e.getValue();
                sb.append('"').append(escape(e.getKey())).append("\":{\"out\":").append(c.out)
                        .append(",\"in\":").append(c.in).append(",\"refused\":").append(c.refused)
                        .append(",\"undeliverable\":").append(c.undeliverable).append('}');
            }
            sb.append("},\"rings\":").append(link.ringsJson());
            sb.append('}');
        }
        return sb.toString();
    }

    static String escape(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
