package org.rtdroid.bridge;

import java.nio.ByteBuffer;
import java.util.zip.CRC32;

import org.rtdroid.bridge.codec.Frame;
import org.rtdroid.bridge.codec.FrameCodec;

import static org.rtdroid.bridge.RegionDescriptor.*;

/**
 * Writes frames into one ring of this peer's own section (spec "Writing a frame"). Single
 * producer: one thread. {@link #offer} allocates nothing.
 */
public final class ProducerRing {
    private final ByteBuffer view;
    private final boolean alignedOnly;
    private final RegionLayout layout;
    private final int peer;
    private final int ring;
    private final int header;
    private final int consumerReadIndex;
    private final long slots;
    private final int maxFrameBytes;
    private final CRC32 crc = new CRC32();
    private final OwnedLine own;    // the ring header: this producer's private copies

    ProducerRing(RegionMemory memory, RegionLayout layout, int peer, int ring) {
        // A private duplicate: copies move its position, never the shared buffer's.
        this.view = memory.buffer().duplicate().order(java.nio.ByteOrder.LITTLE_ENDIAN);
        this.alignedOnly = memory.alignedOnly();
        this.layout = layout;
        this.peer = peer;
        this.ring = ring;
        this.header = layout.ringHeaderOffset(peer, ring);
        this.consumerReadIndex = layout.consumerLineOffset(1 - peer, ring) + READ_INDEX_OFFSET;
        this.slots = layout.slotsPerRing();
        this.maxFrameBytes = layout.maxFrameBytes();
        // Our own section: the previous incarnation's values carry on (spec attach step 3).
        this.own = new OwnedLine(view, header, Counter.RING_HEADER_FIRST, Counter.RING_HEADER_END);
        own.setPrivate(Counter.RING_CLASS, ring); // the ring's number, as the formatter writes it
    }

    /**
     * Places one frame. Returns false when the ring is full or the consumer's read index is not
     * credible (counted in frames_dropped_full); what to do then is the caller's flow-control
     * policy.
     *
     * @throws IllegalArgumentException when {@code len} is not 1..maxFrameBytes (before touching the ring)
     */
    public boolean offer(byte[] frame, int off, int len) {
        if (len < 1 || len > maxFrameBytes) {
            throw new IllegalArgumentException("frame of " + len + " bytes: a slot carries 1.." + maxFrameBytes);
        }
        if (off < 0 || off > frame.length - len) {
            throw new IndexOutOfBoundsException("frame[" + off + ", " + (off + len) + ") outside 0.." + frame.length);
        }
        long w = own.get(Counter.WRITE_INDEX);
        long rd = Shm.getAcquireU64(view, consumerReadIndex);
        // Rd > W or W - Rd > S: not credible, treated as full; W - Rd == S: full. (u64 compares.)
        if (Long.compareUnsigned(rd, w) > 0 || Long.compareUnsigned(w - rd, slots) >= 0) {
            own.increment(Counter.FRAMES_DROPPED_FULL);
            return false;
        }
        int slot = layout.slotOffset(peer, ring, w);
        Shm.copyIn(view, alignedOnly, slot + SLOT_HEADER_BYTES, frame, off, len);
        crc.reset();
        crc.update(frame, off, len);
        view.putInt(slot + FRAME_BYTES_OFFSET, len);
        view.putInt(slot + FRAME_CRC32_OFFSET, (int) crc.getValue());
        view.putLong(slot + SLOT_INDEX_OFFSET, w);
        own.publish(Counter.WRITE_INDEX, w + 1);
        own.increment(Counter.FRAMES_WRITTEN);
        return true;
    }

    /**
     * Encodes {@code frame} into {@code scratch} and offers it. Returns the encoded length, 0 when
     * the ring is full (counted), or a negative {@link FrameCodec} code before touching the ring:
     * a codec error, or {@link FrameCodec#ERR_FRAME_TOO_LONG} when the encoding does not fit a slot.
     * Allocation-free.
     *
     * @param scratch at least {@link #maxFrameBytes()} long
     */
    public int offerFrame(Frame frame, byte[] scratch) {
        int size = FrameCodec.encodedSize(frame);
        if (size < 0) {
            return size;
        }
        if (size > maxFrameBytes) {
            return FrameCodec.ERR_FRAME_TOO_LONG;
        }
        int n = FrameCodec.encode(frame, scratch, 0);
        if (n < 0) {
            return n;
        }
        return offer(scratch, 0, n) ? n : 0;
    }

    /** Convenience: the whole array is one frame. */
    public boolean offer(byte[] frame) {
        return offer(frame, 0, frame.length);
    }

    /**
     * Republishes what this producer owns in its ring header (write index, frames written, frames
     * dropped full, ring class) wherever the shared copy disagrees with its own: another cell
     * scribbled on this peer's section. A moved write index would otherwise make the consumer
     * resynchronise to it and this producer refuse every offer as "not credible". Call it from
     * the producing thread. Returns the number of fields repaired. Allocation-free.
     */
    public int heal() {
        return own.heal();
    }

    /** Slots the consumer has not yet released, as far as this producer can tell (0..S). */
    public int backlog() {
        long rd = Shm.getAcquireU64(view, consumerReadIndex);
        long w = own.get(Counter.WRITE_INDEX);
        long d = w - rd;
        return Long.compareUnsigned(rd, w) > 0 || Long.compareUnsigned(d, slots) > 0 ? (int) slots : (int) d;
    }

    /**
     * This producer's private copy of counter {@code id} of its ring header ({@link Counter}:
     * write_index, frames_written, frames_dropped_full, ring_class, and any the descriptor adds).
     */
    public long get(int id) {
        return own.get(id);
    }

    public int ring() {
        return ring;
    }

    public int maxFrameBytes() {
        return maxFrameBytes;
    }
}
