package org.rtdroid.bridge;

import java.nio.ByteBuffer;
import java.util.zip.CRC32;

import org.rtdroid.bridge.codec.Frame;
import org.rtdroid.bridge.codec.FrameCodec;

import static org.rtdroid.bridge.RegionDescriptor.*;

/**
 * Reads frames from one ring of the OTHER peer's section (spec "Reading a frame"). The consumer
 * line it updates lives in this peer's own section. Nothing read from the region is trusted:
 * indices are checked for credibility, the slot header and frame are copied into private memory
 * before they are validated, and every offset comes from the private geometry and
 * {@code index mod S}. Single consumer: one thread. {@link #poll} allocates nothing and never
 * throws for what the other side wrote.
 */
public final class ConsumerRing {
    private final ByteBuffer view;
    private final boolean alignedOnly;
    private final RegionLayout layout;
    private final int producerPeer;
    private final int ring;
    private final int producerWriteIndex;
    private final int producerHeartbeat; // -1: the management agent's ring (the agent never beats)
    private final int line;
    private final long slots;
    private final int maxFrameBytes;
    private final CRC32 crc = new CRC32();
    private final OwnedLine own;    // read_index and the counters: this consumer's private copies
    private boolean faultOpen;      // the producer's write index is not credible; waiting for its heal
    private long faultHeartbeat;    // the producer's heartbeat when the fault was first seen

    ConsumerRing(RegionMemory memory, RegionLayout layout, int peer, int ring) {
        this.view = memory.buffer().duplicate().order(java.nio.ByteOrder.LITTLE_ENDIAN);
        this.alignedOnly = memory.alignedOnly();
        this.layout = layout;
        this.producerPeer = 1 - peer;
        this.ring = ring;
        this.producerWriteIndex = layout.ringHeaderOffset(producerPeer, ring) + WRITE_INDEX_OFFSET;
        // Ring 0 of the Android peer's section is the management agent's, which has no heartbeat.
        this.producerHeartbeat = producerPeer == ANDROID_PEER && ring == MANAGEMENT_RING ? -1
                : layout.stateLineOffset(producerPeer) + HEARTBEAT_OFFSET;
        this.line = layout.consumerLineOffset(peer, ring);
        this.slots = layout.slotsPerRing();
        this.maxFrameBytes = layout.maxFrameBytes();
        // Our own section: counters carry on across restarts.
        this.own = new OwnedLine(view, line, Counter.CONSUMER_LINE_FIRST, Counter.CONSUMER_LINE_END);
    }

    /** Attach step 4: frames sent to the previous incarnation are skipped, not delivered late. */
    void skipStale() {
        long w = Shm.getAcquireU64(view, producerWriteIndex);
        long rd = own.get(Counter.READ_INDEX);
        long d = w - rd;
        if (Long.compareUnsigned(rd, w) <= 0 && Long.compareUnsigned(d, slots) <= 0) {
            own.add(Counter.STALE_SKIPPED, d);
        }
        own.publish(Counter.READ_INDEX, w);
    }

    /**
     * Copies the next valid frame into {@code dst} and returns its length, or returns 0 when no
     * valid frame is available. Corrupt slots are skipped and counted (frames_corrupt). An
     * incredible write index is a fault (write_index_faults): nothing is read and the read index
     * stays, so the frames written before it are read once the producer heals its index; only a
     * producer that beat twice without healing it (or the management agent, which has no heartbeat
     * to wait on) is resynchronised to (resyncs: the frames then unread are lost). At most S slots
     * are examined per call.
     *
     * @param dst at least {@link #maxFrameBytes()} long
     */
    public int poll(byte[] dst) {
        if (dst.length < maxFrameBytes) {
            throw new IllegalArgumentException("dst of " + dst.length + " bytes: needs " + maxFrameBytes);
        }
        for (long examined = 0; examined < slots; examined++) {
            long w = Shm.getAcquireU64(view, producerWriteIndex);
            long rd = own.get(Counter.READ_INDEX);
            if (Long.compareUnsigned(w, rd) < 0 || Long.compareUnsigned(w - rd, slots) > 0) {
                // Moved backwards or too far ahead (u64 compares).
                if (!healDue()) {
                    return 0;
                }
                w = Shm.getAcquireU64(view, producerWriteIndex); // read after the beats: a heal shows
                if (Long.compareUnsigned(w, rd) < 0 || Long.compareUnsigned(w - rd, slots) > 0) {
                    faultOpen = false;
                    own.increment(Counter.RESYNCS);
                    own.publish(Counter.READ_INDEX, w);
                    return 0;
                }
                continue; // healed just now: read on
            }
            faultOpen = false;
            if (w == rd) {
                return 0;
            }
            int slot = layout.slotOffset(producerPeer, ring, rd);
            // Private copy of the slot header: each field is read exactly once.
            int frameBytes = view.getInt(slot + FRAME_BYTES_OFFSET);
            int frameCrc = view.getInt(slot + FRAME_CRC32_OFFSET);
            long slotIndex = view.getLong(slot + SLOT_INDEX_OFFSET);
            boolean valid = frameBytes >= 1 && frameBytes <= maxFrameBytes && slotIndex == rd;
            if (valid) {
                Shm.copyOut(view, alignedOnly, slot + SLOT_HEADER_BYTES, dst, 0, frameBytes);
                // CRC over the private copy: the other side cannot change what was validated.
                crc.reset();
                crc.update(dst, 0, frameBytes);
                valid = (int) crc.getValue() == frameCrc;
            }
            own.publish(Counter.READ_INDEX, rd + 1);
            if (valid) {
                own.increment(Counter.FRAMES_ACCEPTED);
                return frameBytes;
            }
            own.increment(Counter.FRAMES_CORRUPT);
        }
        return 0;
    }

    /**
     * An incredible write index was just read: opens the fault (counted once) and says whether the
     * producer's heal is overdue: it has beaten twice since the fault was seen (it heals in every
     * pass that beats, so a whole heal has run between them), or it has no heartbeat to wait on. A producer that does not
     * beat (stopped, or dead) is waited for: it sends nothing meanwhile, and a restart beats.
     */
    private boolean healDue() {
        long beat = producerHeartbeat < 0 ? 0 : Shm.getAcquireU64(view, producerHeartbeat);
        if (!faultOpen) {
            faultOpen = true;
            faultHeartbeat = beat;
            own.increment(Counter.WRITE_INDEX_FAULTS);
        }
        return producerHeartbeat < 0 || beat - faultHeartbeat >= 2;
    }

    /**
     * Polls until a frame decodes into {@code into} or nothing valid is left. A frame that does
     * not decode (or has no body) is dropped and counted in frames_undeliverable, as step 6 of
     * the spec says. Returns the frame's encoded length, or 0. Allocation-free.
     *
     * @param scratch at least {@link #maxFrameBytes()} long; holds the private copy
     */
    public int pollFrame(byte[] scratch, Frame into) {
        for (long examined = 0; examined < slots; examined++) {
            int n = poll(scratch);
            if (n == 0) {
                return 0;
            }
            if (FrameCodec.decode(scratch, 0, n, into) == FrameCodec.OK) {
                return n;
            }
            countUndeliverable();
        }
        return 0;
    }

    /**
     * Counts a frame the ring delivered but the layer above dropped (undecodable, no body, unknown
     * channel, sender not allowed, receiver full). Allocation-free.
     */
    public void countUndeliverable() {
        own.increment(Counter.FRAMES_UNDELIVERABLE);
    }

    /**
     * Republishes what this consumer owns in its consumer line (read index and its counters)
     * wherever the shared copy disagrees with its own: another cell scribbled on this peer's
     * section. A moved read index would otherwise make the producer treat the ring as full (not
     * credible) and drop everything it sends this way. Call it from the consuming thread. Returns
     * the number of fields repaired. Allocation-free.
     */
    public int heal() {
        return own.heal();
    }

    /** Frames the producer has published that this consumer has not read (0..S, 0 if incredible). */
    public int available() {
        long w = Shm.getAcquireU64(view, producerWriteIndex);
        long rd = own.get(Counter.READ_INDEX);
        long d = w - rd;
        return Long.compareUnsigned(w, rd) < 0 || Long.compareUnsigned(d, slots) > 0 ? 0 : (int) d;
    }

    /**
     * This consumer's private copy of counter {@code id} of its consumer line ({@link Counter}:
     * read_index, frames_accepted, frames_corrupt, ... and any the descriptor adds), unsigned.
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
