package org.rtdroid.android.proxy;

import java.util.concurrent.ConcurrentHashMap;

/** The proxy's counters. Written on the main looper only; read (racily, for reports) by others. */
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
