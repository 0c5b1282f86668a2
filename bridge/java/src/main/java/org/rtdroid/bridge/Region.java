package org.rtdroid.bridge;

import java.nio.ByteBuffer;
import java.util.zip.CRC32;

import static org.rtdroid.bridge.RegionDescriptor.*;

/**
 * One peer's attachment to the shared region (region-spec.md): the validated private geometry,
 * the peer's own state line, and the rings it produces and consumes.
 *
 * <p>Three kinds of attachment: a <em>cell</em> ({@link #attachCell}: owns its state line,
 * bumps its epoch, owns data rings 1.. and, when asked, management ring 0), the <em>management
 * agent</em> ({@link #attachManagement}: owns only ring 0 and consumer line 0 of its peer's
 * section, never touches state or epoch), and an <em>observer</em> ({@link #observe},
 * {@link #format}: reads header, states and counters, writes nothing).
 *
 * <p>One thread per ring: a {@link ProducerRing} or {@link ConsumerRing} is single-threaded.
 */
public final class Region {
    public static final int RT_PEER = RegionDescriptor.RT_PEER;
    public static final int ANDROID_PEER = RegionDescriptor.ANDROID_PEER;
    /** No peer: an observer attachment. */
    public static final int NO_PEER = -1;

    public static final int STATE_RESET = RegionDescriptor.STATE_RESET;
    public static final int STATE_INITIALISING = RegionDescriptor.STATE_INITIALISING;
    public static final int STATE_READY = RegionDescriptor.STATE_READY;
    public static final int STATE_STOPPING = RegionDescriptor.STATE_STOPPING;
    public static final int STATE_FAILED = RegionDescriptor.STATE_FAILED;

    /** A peer state's name as region-spec.md spells it; "INVALID" for a value outside the table. */
    public static String stateName(int state) {
        return RegionDescriptor.stateName(state);
    }

    /** The spec's default peer_timeout: a heartbeat still for this long means unresponsive. */
    public static final long DEFAULT_PEER_TIMEOUT_NANOS = PEER_TIMEOUT_MS * 1_000_000L;

    /** Ring 0 of each section carries management frames. */
    public static final int MANAGEMENT_RING = RegionDescriptor.MANAGEMENT_RING;

    private final RegionMemory memory;
    private final ByteBuffer buffer;
    private final RegionLayout layout;
    private final int peerId;
    private final boolean ownsStateLine;
    private final ProducerRing[] producers;
    private final ConsumerRing[] consumers;
    private long observedPeerEpoch;
    private long peerRestarts;
    private long heartbeat;
    // This cell's state and epoch as it last wrote them: its private truth. The state is set by the
    // cell's main thread and healed by its proxy thread: volatile, written before the shared copy.
    private volatile int state;
    private int epoch;
    private long repairs;
    // The header as this attachment validated it: the cells heal it word by word (it is derived
    // from the board file, so it never changes while a cell is attached), counting each repair in
    // their state line's header_repairs.
    private final int[] header = new int[HEADER_BYTES / 4];
    private long headerRepairs;
    private boolean peerHeartbeatSeen;
    private long lastPeerHeartbeat;
    private long lastPeerHeartbeatChangeNanos;

    private Region(RegionMemory memory, RegionLayout layout, int peerId, boolean ownsStateLine,
            boolean ownsManagementRing, boolean ownsDataRings) {
        this.memory = memory;
        this.buffer = memory.buffer();
        this.layout = layout;
        this.peerId = peerId;
        this.ownsStateLine = ownsStateLine;
        this.producers = new ProducerRing[layout.rings()];
        this.consumers = new ConsumerRing[layout.rings()];
        for (int word = 0; word < header.length; word++) {
            header[word] = Shm.getAcquireU32(buffer, word * 4);
        }
        if (peerId != NO_PEER) {
            for (int ring = 0; ring < layout.rings(); ring++) {
                boolean owned = ring == MANAGEMENT_RING ? ownsManagementRing : ownsDataRings;
                if (owned) {
                    producers[ring] = new ProducerRing(memory, layout, peerId, ring);
                    consumers[ring] = new ConsumerRing(memory, layout, peerId, ring);
                }
            }
        }
    }

    // ------------------------------------------------------------------ formatting and validation

    /**
     * Formats the region (board tooling, tests): zeroes the formatted size, writes the header and
     * each ring's ring_class. Returns an observer attachment.
     */
    public static Region format(RegionMemory memory, RegionLayout layout) {
        if (memory.sizeBytes() < layout.regionBytes()) {
            throw new RegionFormatException("region_bytes", layout.regionBytes(),
                    "<= the mapped size " + memory.sizeBytes());
        }
        ByteBuffer b = memory.buffer();
        for (int i = 0; i < layout.regionBytes(); i += 8) {
            b.putLong(i, 0L);
        }
        b.putInt(MAGIC_OFFSET, MAGIC);
        b.putShort(LAYOUT_VERSION_OFFSET, (short) LAYOUT_VERSION);
        b.putShort(HEADER_BYTES_OFFSET, (short) HEADER_BYTES);
        b.putInt(REGION_BYTES_OFFSET, layout.regionBytes());
        b.putInt(PEER_COUNT_OFFSET, PEER_COUNT);
        b.putInt(RINGS_PER_PEER_OFFSET, layout.rings());
        b.putInt(SLOTS_PER_RING_OFFSET, layout.slotsPerRing());
        b.putInt(SLOT_BYTES_OFFSET, layout.slotBytes());
        b.putInt(STATE_TABLE_OFFSET_OFFSET, STATE_TABLE_OFFSET);
        b.putInt(SECTION_OFFSET0_OFFSET, layout.sectionOffset(0));
        b.putInt(SECTION_OFFSET1_OFFSET, layout.sectionOffset(1));
        b.putInt(SECTION_BYTES_OFFSET, layout.sectionBytes());
        for (int peer = 0; peer < PEER_COUNT; peer++) {
            for (int ring = 0; ring < layout.rings(); ring++) {
                b.putInt(layout.ringHeaderOffset(peer, ring) + RING_CLASS_OFFSET, ring);
            }
        }
        // The CRC goes last, with release: a peer that sees it sees the whole formatted header.
        Shm.setReleaseU32(b, HEADER_CRC32_OFFSET, headerCrc(b));
        return new Region(memory, layout, NO_PEER, false, false, false);
    }

    /** CRC-32 (zlib) of header bytes 0..43. */
    static int headerCrc(ByteBuffer b) {
        byte[] header = new byte[HEADER_CRC32_OFFSET];
        for (int i = 0; i < header.length; i++) {
            header[i] = b.get(i);
        }
        CRC32 crc = new CRC32();
        crc.update(header, 0, header.length);
        return (int) crc.getValue();
    }

    /**
     * Validates the header against every rule of region-spec.md and the mapped size; returns the
     * private geometry.
     *
     * @throws RegionFormatException naming the first field that breaks its rule
     */
    public static RegionLayout validateHeader(RegionMemory memory) {
        ByteBuffer b = memory.buffer();
        long mapped = memory.sizeBytes();
        if (mapped < HEADER_BYTES) {
            throw new RegionFormatException("mapped size", mapped, ">= " + HEADER_BYTES + " bytes");
        }
        int magic = Shm.getAcquireU32(b, MAGIC_OFFSET);
        if (magic != MAGIC) {
            throw new RegionFormatException("magic", Integer.toUnsignedLong(magic),
                    "0x31434358 (\"XCC1\"); is the region formatted?");
        }
        int version = b.getShort(LAYOUT_VERSION_OFFSET) & 0xFFFF;
        if (version != LAYOUT_VERSION) {
            throw new RegionFormatException("layout_version", version, String.valueOf(LAYOUT_VERSION));
        }
        int headerBytes = b.getShort(HEADER_BYTES_OFFSET) & 0xFFFF;
        if (headerBytes != HEADER_BYTES) {
            throw new RegionFormatException("header_bytes", headerBytes, String.valueOf(HEADER_BYTES));
        }
        int storedCrc = Shm.getAcquireU32(b, HEADER_CRC32_OFFSET);
        int crc = headerCrc(b);
        if (storedCrc != crc) {
            throw new RegionFormatException("header_crc32", Integer.toUnsignedLong(storedCrc),
                    "the CRC-32 of header bytes 0..43, 0x" + Integer.toHexString(crc));
        }
        long peerCount = u32(b, PEER_COUNT_OFFSET);
        if (peerCount != PEER_COUNT) {
            throw new RegionFormatException("peer_count", peerCount, String.valueOf(PEER_COUNT));
        }
        long rings = u32(b, RINGS_PER_PEER_OFFSET);
        long slots = u32(b, SLOTS_PER_RING_OFFSET);
        long slotBytes = u32(b, SLOT_BYTES_OFFSET);
        if (rings > MAX_RINGS) {
            throw new RegionFormatException("rings_per_peer", rings, MIN_RINGS + " <= R <= " + MAX_RINGS);
        }
        if (slots > MAX_SLOTS) {
            throw new RegionFormatException("slots_per_ring", slots,
                    "a power of two, " + MIN_SLOTS + " <= S <= " + MAX_SLOTS);
        }
        if (slotBytes > MAX_SLOT_BYTES) {
            throw new RegionFormatException("slot_bytes", slotBytes,
                    "a multiple of 64, " + MIN_SLOT_BYTES + " <= slot_bytes <= " + MAX_SLOT_BYTES);
        }
        RegionLayout layout = RegionLayout.of((int) rings, (int) slots, (int) slotBytes);
        long stateTable = u32(b, STATE_TABLE_OFFSET_OFFSET);
        if (stateTable != STATE_TABLE_OFFSET) {
            throw new RegionFormatException("state_table_offset", stateTable, String.valueOf(STATE_TABLE_OFFSET));
        }
        long sectionBytes = u32(b, SECTION_BYTES_OFFSET);
        if (sectionBytes != layout.sectionBytes()) {
            throw new RegionFormatException("section_bytes", sectionBytes,
                    "64*R + R*(64 + S*slot_bytes) = " + layout.sectionBytes());
        }
        long section0 = u32(b, SECTION_OFFSET0_OFFSET);
        if (section0 != layout.sectionOffset(0)) {
            throw new RegionFormatException("section_offset[0]", section0, String.valueOf(layout.sectionOffset(0)));
        }
        long section1 = u32(b, SECTION_OFFSET1_OFFSET);
        if (section1 != layout.sectionOffset(1)) {
            throw new RegionFormatException("section_offset[1]", section1,
                    "256 + section_bytes = " + layout.sectionOffset(1));
        }
        long regionBytes = u32(b, REGION_BYTES_OFFSET);
        if (regionBytes < layout.regionBytes()) {
            throw new RegionFormatException("region_bytes", regionBytes,
                    ">= 256 + 2*section_bytes = " + layout.regionBytes());
        }
        if (regionBytes > mapped) {
            throw new RegionFormatException("region_bytes", regionBytes, "<= the mapped size " + mapped);
        }
        for (int off = HEADER_CRC32_OFFSET + 4; off < HEADER_BYTES; off += 4) {
            long reserved = u32(b, off);
            if (reserved != 0) {
                throw new RegionFormatException("reserved header bytes at offset " + off, reserved, "zero");
            }
        }
        return layout;
    }

    private static long u32(ByteBuffer b, int offset) {
        return Integer.toUnsignedLong(b.getInt(offset));
    }

    // ------------------------------------------------------------------ attachments

    /** Reads header, states and counters; writes nothing. */
    public static Region observe(RegionMemory memory) {
        return new Region(memory, validateHeader(memory), NO_PEER, false, false, false);
    }

    /**
     * A cell attaches (spec "Attach, restart and resynchronisation"): validate the header; state
     * INITIALISING; epoch + 1; for each consumer line it owns skip the frames addressed to its
     * previous incarnation; state READY; first heartbeat.
     *
     * @param ownsManagementRing true for the RT cell; false for the Android proxy service, whose
     *        section's ring 0 and consumer line 0 belong to the management agent
     */
    public static Region attachCell(RegionMemory memory, int peerId, boolean ownsManagementRing) {
        checkPeer(peerId);
        RegionLayout layout = validateHeader(memory);
        Region region = new Region(memory, layout, peerId, true, ownsManagementRing, true);
        ByteBuffer b = region.buffer;
        int line = layout.stateLineOffset(peerId);
        Shm.setReleaseU32(b, line + STATE_OFFSET, STATE_INITIALISING);
        region.epoch = Shm.getOpaqueU32(b, line + EPOCH_OFFSET) + 1;
        Shm.setReleaseU32(b, line + EPOCH_OFFSET, region.epoch);
        for (ConsumerRing consumer : region.consumers) {
            if (consumer != null) {
                consumer.skipStale();
            }
        }
        region.observedPeerEpoch = region.peerEpoch(1 - peerId);
        region.heartbeat = Shm.getOpaqueU64(b, line + HEARTBEAT_OFFSET);
        region.headerRepairs = Shm.getOpaqueU64(b, line + HEADER_REPAIRS_OFFSET);
        region.state = STATE_READY;
        Shm.setReleaseU32(b, line + STATE_OFFSET, STATE_READY);
        region.heartbeat();
        return region;
    }

    /**
     * The management agent attaches: owns ring 0 and consumer line 0 of {@code peerId}'s section
     * (answers to an earlier agent's requests are skipped and counted as stale), never touches
     * the state line. The caller holds {@code flock(<region>.lock)} for the whole exchange.
     */
    public static Region attachManagement(RegionMemory memory, int peerId) {
        checkPeer(peerId);
        RegionLayout layout = validateHeader(memory);
        Region region = new Region(memory, layout, peerId, false, true, false);
        region.consumers[MANAGEMENT_RING].skipStale();
        region.observedPeerEpoch = region.peerEpoch(1 - peerId);
        return region;
    }

    /**
     * Opens the region as {@code peerId} WITHOUT the attach protocol: header validated, nothing
     * written; rings take their private indices from the region as found. For the shared test
     * vectors and for diagnosis of a stopped region, never for a running cell.
     */
    static Region openWithoutAttach(RegionMemory memory, int peerId) {
        checkPeer(peerId);
        return new Region(memory, validateHeader(memory), peerId, false, true, true);
    }

    private static void checkPeer(int peerId) {
        if (peerId != RT_PEER && peerId != ANDROID_PEER) {
            throw new IllegalArgumentException("peerId " + peerId + " must be " + RT_PEER + " (RT cell) or "
                    + ANDROID_PEER + " (Android cell)");
        }
    }

    // ------------------------------------------------------------------ accessors

    /** This attachment's peer, or {@link #NO_PEER} for an observer. */
    public int peerId() {
        return peerId;
    }

    /** The other peer. */
    public int otherPeer() {
        return 1 - peerId;
    }

    public RegionLayout layout() {
        return layout;
    }

    public RegionMemory memory() {
        return memory;
    }

    /** Load-acquire of a peer's state. */
    public int peerState(int peer) {
        checkPeer(peer);
        return Shm.getAcquireU32(buffer, layout.stateLineOffset(peer) + STATE_OFFSET);
    }

    /** A peer's epoch (u32, as an unsigned long). */
    public long peerEpoch(int peer) {
        checkPeer(peer);
        return Integer.toUnsignedLong(Shm.getAcquireU32(buffer, layout.stateLineOffset(peer) + EPOCH_OFFSET));
    }

    public long peerHeartbeat(int peer) {
        checkPeer(peer);
        return Shm.getAcquireU64(buffer, layout.stateLineOffset(peer) + HEARTBEAT_OFFSET);
    }

    /** True when the other peer is READY. */
    public boolean peerReady() {
        return peerState(otherPeer()) == STATE_READY;
    }

    /**
     * Checks the other peer's epoch; true (and one more {@link #peerRestarts()}) when it changed
     * since the last check or since attaching. The other peer's first attach (epoch 0 to 1) is a
     * start, not a restart. Allocation-free.
     */
    public boolean peerRestarted() {
        long epoch = peerEpoch(otherPeer());
        if (epoch != observedPeerEpoch) {
            boolean restart = observedPeerEpoch != 0;
            observedPeerEpoch = epoch;
            if (restart) {
                peerRestarts++;
            }
            return restart;
        }
        return false;
    }

    /**
     * True when the other peer's heartbeat has not moved for {@code timeoutNanos} (the spec's
     * peer_timeout, {@link #DEFAULT_PEER_TIMEOUT_NANOS}); nothing should then be sent to it that
     * could not also be dropped. Call it periodically with {@code System.nanoTime()}; the first
     * call only starts the clock. Allocation-free.
     */
    public boolean peerUnresponsive(long nowNanos, long timeoutNanos) {
        long beat = peerHeartbeat(otherPeer());
        if (!peerHeartbeatSeen || beat != lastPeerHeartbeat) {
            peerHeartbeatSeen = true;
            lastPeerHeartbeat = beat;
            lastPeerHeartbeatChangeNanos = nowNanos;
            return false;
        }
        return nowNanos - lastPeerHeartbeatChangeNanos > timeoutNanos;
    }

    /** Restarts of the other peer this attachment has seen. */
    public long peerRestarts() {
        return peerRestarts;
    }

    /** Stores this cell's state with release semantics. */
    public void setState(int state) {
        requireStateLine();
        if (state < STATE_RESET || state > STATE_FAILED) {
            throw new IllegalArgumentException("state " + state + " must be " + STATE_RESET + ".." + STATE_FAILED);
        }
        this.state = state;
        Shm.setReleaseU32(buffer, layout.stateLineOffset(peerId) + STATE_OFFSET, state);
    }

    /**
     * Self-healing (region-spec.md, "A peer's own fields"): republishes every field this cell owns
     * whose shared copy another cell has changed: its state line (state, epoch, heartbeat) and, for
     * each ring from {@code firstRing} on that it owns, the producer's ring header and the
     * consumer's line. Each side keeps the truth privately, so a scribbled field is put back, not
     * believed. Call it from the thread that owns those rings, at least every heartbeat. Returns
     * the fields repaired (also added to {@link #repairs()}). Allocation-free.
     */
    public int heal(int firstRing) {
        int n = 0;
        if (ownsStateLine) {
            int line = layout.stateLineOffset(peerId);
            // setState writes the private state, then the shared one: a state that changed while
            // this looked is the owner's own write in flight, not a scribble (if the owner writes
            // between this check and the repair, the next heal puts its new state back).
            int own = state;
            if (Shm.getAcquireU32(buffer, line + STATE_OFFSET) != own && state == own) {
                n += Shm.republishU32(buffer, line + STATE_OFFSET, own);
            }
            n += Shm.republishU32(buffer, line + EPOCH_OFFSET, epoch)
                    + Shm.republishU64(buffer, line + HEARTBEAT_OFFSET, heartbeat);
            n += Shm.republishU64(buffer, line + HEADER_REPAIRS_OFFSET, headerRepairs);
            int words = healHeader();
            if (words > 0) {
                headerRepairs += words;
                Shm.setReleaseU64(buffer, line + HEADER_REPAIRS_OFFSET, headerRepairs);
                n += words;
            }
        }
        for (int ring = Math.max(0, firstRing); ring < layout.rings(); ring++) {
            if (producers[ring] != null) {
                n += producers[ring].heal();
            }
            if (consumers[ring] != null) {
                n += consumers[ring].heal();
            }
        }
        repairs += n;
        return n;
    }

    /**
     * Puts back every header word that differs from the header this cell validated at attach
     * (region-spec.md, "Healing the header"): both cells write the same words, the CRC last with
     * release, so a reader that sees the CRC right sees the words it covers. Returns the words.
     */
    private int healHeader() {
        int n = 0;
        int crcWord = HEADER_CRC32_OFFSET / 4;
        for (int word = 0; word < header.length; word++) {
            if (word != crcWord) {
                n += Shm.republishU32(buffer, word * 4, header[word]);
            }
        }
        return n + Shm.republishU32(buffer, HEADER_CRC32_OFFSET, header[crcWord]);
    }

    /** Header words {@link #heal} has put back, by this cell in all its attachments (the shared count). */
    public long headerRepairs() {
        return headerRepairs;
    }

    /** Fields {@link #heal} has put back since this attachment began. */
    public long repairs() {
        return repairs;
    }

    /** Advances this cell's heartbeat (at least every 100 ms while READY). Allocation-free. */
    public void heartbeat() {
        requireStateLine();
        heartbeat++;
        Shm.setReleaseU64(buffer, layout.stateLineOffset(peerId) + HEARTBEAT_OFFSET, heartbeat);
    }

    private void requireStateLine() {
        if (!ownsStateLine) {
            throw new IllegalStateException("this attachment (peer " + peerId
                    + ") does not own a state line: only attachCell does");
        }
    }

    /** The ring this peer produces; the same instance each call. */
    public ProducerRing producer(int ring) {
        checkRing(ring);
        ProducerRing p = producers[ring];
        if (p == null) {
            throw new IllegalStateException("peer " + peerId + "'s attachment does not own producer ring " + ring);
        }
        return p;
    }

    /** The reader of the OTHER peer's ring {@code ring}; the same instance each call. */
    public ConsumerRing consumer(int ring) {
        checkRing(ring);
        ConsumerRing c = consumers[ring];
        if (c == null) {
            throw new IllegalStateException("peer " + peerId + "'s attachment does not own consumer line " + ring);
        }
        return c;
    }

    private void checkRing(int ring) {
        if (ring < 0 || ring >= layout.rings()) {
            throw new IllegalArgumentException("ring " + ring + " must be 0.." + (layout.rings() - 1));
        }
    }

    /**
     * Counter {@code id} of {@code peer}'s state line ({@link RegionDescriptor.Counter}: state, epoch,
     * heartbeat, header_repairs, and any the descriptor adds), unsigned: the generic reader.
     */
    public long stateCounter(int peer, int id) {
        checkPeer(peer);
        if (id < Counter.STATE_LINE_FIRST || id >= Counter.STATE_LINE_END) {
            throw new IllegalArgumentException("counter " + id + " is not one of a state line ("
                    + Counter.STATE_LINE_FIRST + ".." + (Counter.STATE_LINE_END - 1) + ")");
        }
        return OwnedLine.read(buffer, layout.stateLineOffset(peer), id);
    }

    /** Snapshot of ring {@code ring} produced by {@code peer} and of the consumer line reading it. */
    public RingCounters counters(int peer, int ring) {
        checkPeer(peer);
        checkRing(ring);
        int header = layout.ringHeaderOffset(peer, ring);
        int line = layout.consumerLineOffset(1 - peer, ring);
        return new RingCounters(peer, ring, header, line, buffer);
    }

    /**
     * The data ring for an intent of {@code senderPriority} (0..99, higher is more urgent):
     * {@code 1 + floor((99 - p)·(R - 1) / 100)}.
     */
    public static int dataRingFor(int senderPriority, int rings) {
        if (senderPriority < 0 || senderPriority > 99) {
            throw new IllegalArgumentException("sender_priority " + senderPriority + " must be 0..99");
        }
        if (rings < MIN_RINGS || rings > MAX_RINGS) {
            throw new IllegalArgumentException("rings " + rings + " must be " + MIN_RINGS + ".." + MAX_RINGS);
        }
        return 1 + (99 - senderPriority) * (rings - 1) / 100;
    }

    @Override
    public String toString() {
        return "Region{peer=" + peerId + ", " + layout + ", " + memory.description() + "}";
    }
}
