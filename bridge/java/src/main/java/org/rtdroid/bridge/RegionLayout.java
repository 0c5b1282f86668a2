package org.rtdroid.bridge;

/**
 * The geometry of a layout-version-1 region (region-spec.md): every offset a peer uses is
 * computed here from three validated numbers, never read back from the shared memory.
 */
public final class RegionLayout {
    public static final int MAGIC = 0x31434358; // "XCC1" little-endian
    public static final int LAYOUT_VERSION = 1;
    public static final int HEADER_BYTES = 128;
    public static final int PEER_COUNT = 2;
    public static final int STATE_TABLE_OFFSET = 128;
    public static final int STATE_LINE_BYTES = 64;
    public static final int FIRST_SECTION_OFFSET = 256;
    public static final int CACHE_LINE_BYTES = 64;
    public static final int CONSUMER_LINE_BYTES = 64;
    public static final int RING_HEADER_BYTES = 64;
    public static final int SLOT_HEADER_BYTES = 16;
    public static final int MIN_RINGS = 2;
    public static final int MAX_RINGS = 8;
    public static final int MIN_SLOTS = 4;
    public static final int MAX_SLOTS = 4096;
    public static final int MIN_SLOT_BYTES = 128;
    public static final int MAX_SLOT_BYTES = 4096;
    public static final int DEFAULT_SLOT_BYTES = 512;

    // header field offsets
    public static final int MAGIC_OFFSET = 0;
    public static final int LAYOUT_VERSION_OFFSET = 4;
    public static final int HEADER_BYTES_OFFSET = 6;
    public static final int REGION_BYTES_OFFSET = 8;
    public static final int PEER_COUNT_OFFSET = 12;
    public static final int RINGS_OFFSET = 16;
    public static final int SLOTS_OFFSET = 20;
    public static final int SLOT_BYTES_OFFSET = 24;
    public static final int STATE_TABLE_OFFSET_OFFSET = 28;
    public static final int SECTION0_OFFSET_OFFSET = 32;
    public static final int SECTION1_OFFSET_OFFSET = 36;
    public static final int SECTION_BYTES_OFFSET = 40;
    public static final int HEADER_CRC_OFFSET = 44;

    // state line
    public static final int STATE_OFFSET = 0;
    public static final int EPOCH_OFFSET = 4;
    public static final int HEARTBEAT_OFFSET = 8;

    // consumer line
    public static final int READ_INDEX_OFFSET = 0;
    public static final int FRAMES_ACCEPTED_OFFSET = 8;
    public static final int FRAMES_CORRUPT_OFFSET = 16;
    public static final int RESYNCS_OFFSET = 24;
    public static final int FRAMES_UNDELIVERABLE_OFFSET = 32;
    public static final int STALE_SKIPPED_OFFSET = 40;

    // ring header
    public static final int WRITE_INDEX_OFFSET = 0;
    public static final int FRAMES_WRITTEN_OFFSET = 8;
    public static final int FRAMES_DROPPED_FULL_OFFSET = 16;
    public static final int RING_CLASS_OFFSET = 24;

    // slot header
    public static final int FRAME_BYTES_OFFSET = 0;
    public static final int FRAME_CRC_OFFSET = 4;
    public static final int SLOT_INDEX_OFFSET = 8;

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
        if (slotBytes < MIN_SLOT_BYTES || slotBytes > MAX_SLOT_BYTES || slotBytes % CACHE_LINE_BYTES != 0) {
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
