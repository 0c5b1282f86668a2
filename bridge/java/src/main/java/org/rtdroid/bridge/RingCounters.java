package org.rtdroid.bridge;

import static org.rtdroid.bridge.RegionDescriptor.Counter;

import org.rtdroid.json.JsonWriter;

/**
 * A snapshot of every counter of one ring: the producer's ring header (in the producer's section)
 * and the consumer line that reads it (in the other peer's section), read through the
 * descriptor's counter table ({@link Counter}: id, label, offset, width), as AeronStat reads
 * Aeron's counters. {@link #value} and {@link #toJson} cover every counter of those two lines, so
 * a counter added to bridge/layout/region-layout.toml appears here with no change. The named
 * getters are conveniences for the counters callers sum. Not for the real-time path.
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
            int at = line + Counter.offset(id);
            values[id] = Counter.width(id) == 8 ? Shm.getAcquireU64(b, at)
                    : Integer.toUnsignedLong(Shm.getAcquireU32(b, at));
        }
    }

    /** Counter {@code id} ({@link Counter}) of a ring header or consumer line: unsigned. */
    public long value(int id) {
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

    public int ringClass() {
        return (int) values[Counter.RING_CLASS];
    }

    public long writeIndex() {
        return values[Counter.WRITE_INDEX];
    }

    public long framesWritten() {
        return values[Counter.FRAMES_WRITTEN];
    }

    public long framesDroppedFull() {
        return values[Counter.FRAMES_DROPPED_FULL];
    }

    public long readIndex() {
        return values[Counter.READ_INDEX];
    }

    public long framesAccepted() {
        return values[Counter.FRAMES_ACCEPTED];
    }

    public long framesCorrupt() {
        return values[Counter.FRAMES_CORRUPT];
    }

    public long resyncs() {
        return values[Counter.RESYNCS];
    }

    public long framesUndeliverable() {
        return values[Counter.FRAMES_UNDELIVERABLE];
    }

    public long staleSkipped() {
        return values[Counter.STALE_SKIPPED];
    }

    public long writeIndexFaults() {
        return values[Counter.WRITE_INDEX_FAULTS];
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
