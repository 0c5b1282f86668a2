package org.rtdroid.bridge;

import org.rtdroid.json.JsonWriter;

/**
 * A snapshot of every counter of one ring: the producer's ring header (in the producer's section)
 * and the consumer line that reads it (in the other peer's section). Not for the real-time path.
 */
public final class RingCounters {
    private final int producerPeer;
    private final int ring;
    private final int ringClass;
    private final long writeIndex;
    private final long framesWritten;
    private final long framesDroppedFull;
    private final long readIndex;
    private final long framesAccepted;
    private final long framesCorrupt;
    private final long resyncs;
    private final long framesUndeliverable;
    private final long staleSkipped;

    RingCounters(int producerPeer, int ring, int ringClass, long writeIndex, long framesWritten,
            long framesDroppedFull, long readIndex, long framesAccepted, long framesCorrupt, long resyncs,
            long framesUndeliverable, long staleSkipped) {
        this.producerPeer = producerPeer;
        this.ring = ring;
        this.ringClass = ringClass;
        this.writeIndex = writeIndex;
        this.framesWritten = framesWritten;
        this.framesDroppedFull = framesDroppedFull;
        this.readIndex = readIndex;
        this.framesAccepted = framesAccepted;
        this.framesCorrupt = framesCorrupt;
        this.resyncs = resyncs;
        this.framesUndeliverable = framesUndeliverable;
        this.staleSkipped = staleSkipped;
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
        return ringClass;
    }

    public long writeIndex() {
        return writeIndex;
    }

    public long framesWritten() {
        return framesWritten;
    }

    public long framesDroppedFull() {
        return framesDroppedFull;
    }

    public long readIndex() {
        return readIndex;
    }

    public long framesAccepted() {
        return framesAccepted;
    }

    public long framesCorrupt() {
        return framesCorrupt;
    }

    public long resyncs() {
        return resyncs;
    }

    public long framesUndeliverable() {
        return framesUndeliverable;
    }

    public long staleSkipped() {
        return staleSkipped;
    }

    /** One JSON object (unsigned decimal numbers). */
    public String toJson() {
        return new JsonWriter().beginObject()
                .field("producer_peer", producerPeer).field("ring", ring)
                .field("ring_class", Integer.toUnsignedLong(ringClass))
                .unsignedField("write_index", writeIndex)
                .unsignedField("frames_written", framesWritten)
                .unsignedField("frames_dropped_full", framesDroppedFull)
                .unsignedField("read_index", readIndex)
                .unsignedField("frames_accepted", framesAccepted)
                .unsignedField("frames_corrupt", framesCorrupt)
                .unsignedField("resyncs", resyncs)
                .unsignedField("frames_undeliverable", framesUndeliverable)
                .unsignedField("stale_skipped", staleSkipped)
                .endObject().toString();
    }

    @Override
    public String toString() {
        return "RingCounters" + toJson();
    }
}
