package org.rtdroid.bridge;

import static org.rtdroid.bridge.RegionDescriptor.*;

/**
 * The geometry of a layout-version-1 region (region-spec.md): every offset a peer uses is
 * computed here from three validated numbers, never read back from the shared memory. The fixed
 * numbers (sizes, offsets of every field, bounds) are {@link RegionDescriptor}'s, generated from
 * bridge/layout/region-layout.toml.
 */
public final class RegionLayout {
    private final int rings;
    private final int slotsPerRing;
    private final int slotBytes;
    private final int ringBytes;
    private final int sectionBytes;
    private final int regionBytes;

    private RegionLayout(int rings, int slotsPerRing, int slotBytes) {
        this.rings = rings;
        this.slotsPerRing = slotsPerRing;
        this.slotBytes = slotBytes;
        this.ringBytes = RING_HEADER_BYTES + slotsPerRing * slotBytes;
        this.sectionBytes = CONSUMER_LINE_BYTES * rings + rings * ringBytes;
        this.regionBytes = FIRST_SECTION_OFFSET + PEER_COUNT * sectionBytes;
    }

    /**
     * A validated geometry.
     *
     * @throws RegionFormatException naming the parameter that breaks its rule
     */
    public static RegionLayout of(int rings, int slotsPerRing, int slotBytes) {
        if (rings < MIN_RINGS || rings > MAX_RINGS) {
            throw new RegionFormatException("rings_per_peer", rings, MIN_RINGS + " <= R <= " + MAX_RINGS);
        }
        if (slotsPerRing < MIN_SLOTS || slotsPerRing > MAX_SLOTS || Integer.bitCount(slotsPerRing) != 1) {
            throw new RegionFormatException("slots_per_ring", slotsPerRing,
                    "a power of two, " + MIN_SLOTS + " <= S <= " + MAX_SLOTS);
        }
        if (slotBytes < MIN_SLOT_BYTES || slotBytes > MAX_SLOT_BYTES || slotBytes % SLOT_BYTES_MULTIPLE_OF != 0) {
            throw new RegionFormatException("slot_bytes", slotBytes,
                    "a multiple of 64, " + MIN_SLOT_BYTES + " <= slot_bytes <= " + MAX_SLOT_BYTES);
        }
        return new RegionLayout(rings, slotsPerRing, slotBytes);
    }

    public int rings() {
        return rings;
    }

    public int slotsPerRing() {
        return slotsPerRing;
    }

    public int slotBytes() {
        return slotBytes;
    }

    /** The largest frame one slot carries: slot_bytes - 16. */
    public int maxFrameBytes() {
        return slotBytes - SLOT_HEADER_BYTES;
    }

    /** 64·R + R·(64 + S·slot_bytes). */
    public int sectionBytes() {
        return sectionBytes;
    }

    /** 256 + 2·section_bytes: the smallest region this geometry fits. */
    public int regionBytes() {
        return regionBytes;
    }

    public int stateLineOffset(int peer) {
        return STATE_TABLE_OFFSET + peer * STATE_LINE_BYTES;
    }

    public int sectionOffset(int peer) {
        return FIRST_SECTION_OFFSET + peer * sectionBytes;
    }

    /** Peer {@code peer}'s read position in the OTHER peer's ring {@code ring}. */
    public int consumerLineOffset(int peer, int ring) {
        return sectionOffset(peer) + ring * CONSUMER_LINE_BYTES;
    }

    /** Header of ring {@code ring} that peer {@code peer} produces. */
    public int ringHeaderOffset(int peer, int ring) {
        return sectionOffset(peer) + CONSUMER_LINE_BYTES * rings + ring * ringBytes;
    }

    /** Slot {@code index mod S} of ring {@code ring} that peer {@code peer} produces. */
    public int slotOffset(int peer, int ring, long index) {
        return ringHeaderOffset(peer, ring) + RING_HEADER_BYTES + (int) (index & (slotsPerRing - 1)) * slotBytes;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof RegionLayout)) {
            return false;
        }
        RegionLayout other = (RegionLayout) o;
        return rings == other.rings && slotsPerRing == other.slotsPerRing && slotBytes == other.slotBytes;
    }

    @Override
    public int hashCode() {
        return (rings * 31 + slotsPerRing) * 31 + slotBytes;
    }

    @Override
    public String toString() {
        return "RegionLayout{rings=" + rings + ", slotsPerRing=" + slotsPerRing + ", slotBytes=" + slotBytes
                + ", regionBytes=" + regionBytes + "}";
    }
}
