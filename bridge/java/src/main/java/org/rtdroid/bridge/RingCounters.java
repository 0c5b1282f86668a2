package org.rtdroid.bridge;

import static org.rtdroid.bridge.RegionDescriptor.Counter;

import org.rtdroid.json.JsonWriter;

/**
 * A snapshot of every counter of one ring: the producer's ring header (in the producer's section)
 * and the consumer line that reads it (in the other peer's section), read through the
 * descriptor's counter table ({@link Counter}: id, label, offset, width), as AeronStat reads
 * Aeron's counters: {@code counters.get(Counter.FRAMES_CORRUPT)}. {@link #get} and {@link #toJson}
 * cover every counter of those two lines, so a counter added to bridge/layout/region-layout.toml
 * appears here with no change. Not for the real-time path.
 */
public final class RingCounters {
    private final int producerPeer;
    private final int ring;
    private final long[] values = new long[Counter.COUNT]; // by counter id; state-line ids stay 0

    RingCounters(int producerPeer, int ring, int ringHeaderOffset, int consumerLineOffset, java.nio.ByteBuffer b) {
        this.producerPeer = producerPeer;
        this.ring = ring;
        read(b, ringHeaderOffset, Counter.RING_HEADER_FIRST, Counter.RING_HEADER_END);
        read(b, consumerLineOffset, Counter.CONSUMER_LINE_FIRST, Counter.CONSUMER_LINE_END);
    }

    private void read(java.nio.ByteBuffer b, int line, int first, int end) {
        for (int id = first; id < end; id++) {
            values[id] = OwnedLine.read(b, line, id);
        }
    }

    /** Counter {@code id} ({@link Counter}) of a ring header or consumer line: unsigned. */
    public long get(int id) {
        if (id < Counter.RING_HEADER_FIRST || id >= Counter.CONSUMER_LINE_END) {
            throw new IllegalArgumentException("counter " + id + " is not one of a ring header or consumer line ("
                    + Counter.RING_HEADER_FIRST + ".." + (Counter.CONSUMER_LINE_END - 1) + ")");
        }
        return values[id];
    }

    /** The peer that produces this ring. */
    public int producerPeer() {
        return producerPeer;
    }

    /** The peer that consumes this ring. */
    public int consumerPeer() {
        return 1 - producerPeer;
    }

    public int ring() {
        return ring;
    }

    /** One JSON object: producer_peer, ring, then every counter by its label (unsigned decimal). */
    public String toJson() {
        JsonWriter w = new JsonWriter().beginObject().field("producer_peer", producerPeer).field("ring", ring);
        for (int id = Counter.RING_HEADER_FIRST; id < Counter.CONSUMER_LINE_END; id++) {
            w.unsignedField(Counter.label(id), values[id]);
        }
        return w.endObject().toString();
    }

    @Override
    public String toString() {
        return "RingCounters" + toJson();
    }
}
