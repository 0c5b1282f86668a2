package org.rtdroid.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rtdroid.bridge.RegionDescriptor.*;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every field of the layout a peer owns (its state line, each of its ring headers, each of its
 * consumer lines), scribbled on by the other cell, is put back by the owner's {@link Region#heal}
 * from its private truth, and frames flow both ways again afterwards. Both peers, every field.
 */
class SelfHealingTest {
    private static final int RINGS = 3;
    private static final int SLOTS = 8;
    private static final RegionLayout LAYOUT = RegionLayout.of(RINGS, SLOTS, 256);

    /** A field: whose it is, where it lies, its width, and a hostile value to write there. */
    record Field(String name, int owner, int offset, boolean u32, long hostile) {
        @Override
        public String toString() {
            return (owner == Region.RT_PEER ? "rt " : "android ") + name;
        }
    }

    static List<Field> ownedFields() {
        List<Field> all = new ArrayList<>();
        for (int peer : new int[] {Region.RT_PEER, Region.ANDROID_PEER}) {
            int state = LAYOUT.stateLineOffset(peer);
            all.add(new Field("state", peer, state + STATE_OFFSET, true, Region.STATE_STOPPING));
            all.add(new Field("epoch", peer, state + EPOCH_OFFSET, true, 77));
            all.add(new Field("heartbeat", peer, state + HEARTBEAT_OFFSET, false, 0));
            all.add(new Field("header_repairs", peer, state + HEADER_REPAIRS_OFFSET, false, 999));
            for (int ring = 1; ring < RINGS; ring++) {
                int header = LAYOUT.ringHeaderOffset(peer, ring);
                all.add(new Field("ring " + ring + " write_index", peer, header + WRITE_INDEX_OFFSET, false, 1L << 40));
                all.add(new Field("ring " + ring + " frames_written", peer, header + FRAMES_WRITTEN_OFFSET, false, 999));
                all.add(new Field("ring " + ring + " frames_dropped_full", peer, header + FRAMES_DROPPED_FULL_OFFSET, false, 999));
                all.add(new Field("ring " + ring + " ring_class", peer, header + RING_CLASS_OFFSET, true, 7));
                int line = LAYOUT.consumerLineOffset(peer, ring);
                all.add(new Field("line " + ring + " read_index", peer, line + READ_INDEX_OFFSET, false, 1L << 40));
                all.add(new Field("line " + ring + " frames_accepted", peer, line + FRAMES_ACCEPTED_OFFSET, false, 999));
                all.add(new Field("line " + ring + " frames_corrupt", peer, line + FRAMES_CORRUPT_OFFSET, false, 999));
                all.add(new Field("line " + ring + " resyncs", peer, line + RESYNCS_OFFSET, false, 999));
                all.add(new Field("line " + ring + " frames_undeliverable", peer, line + FRAMES_UNDELIVERABLE_OFFSET, false, 999));
                all.add(new Field("line " + ring + " stale_skipped", peer, line + STALE_SKIPPED_OFFSET, false, 999));
                all.add(new Field("line " + ring + " write_index_faults", peer, line + WRITE_INDEX_FAULTS_OFFSET, false, 999));
            }
        }
        return all;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("ownedFields")
    void theOwnerPutsAScribbledFieldBackAndTrafficFlowsAgain(Field f) {
        RegionMemory memory = TestRegions.formatted(LAYOUT);
        Region rt = Region.attachCell(memory, Region.RT_PEER, true);
        Region android = Region.attachCell(memory, Region.ANDROID_PEER, false);
        Region[] peers = {rt, android};
        exchange(rt, android, 1, 3);
        ByteBuffer b = memory.buffer().duplicate().order(ByteOrder.LITTLE_ENDIAN);
        long before = f.u32 ? Integer.toUnsignedLong(b.getInt(f.offset)) : b.getLong(f.offset);

        // the other cell scribbles; the owner's next heal (its heartbeat pass) puts it back
        if (f.u32) {
            b.putInt(f.offset, (int) f.hostile);
        } else {
            b.putLong(f.offset, f.hostile);
        }
        Region owner = peers[f.owner];
        pass(peers[1 - f.owner]); // the other side reads what was scribbled (a moved write index: it waits for the heal)
        assertEquals(1, owner.heal(1), f + " repaired once");
        long after = f.u32 ? Integer.toUnsignedLong(b.getInt(f.offset)) : b.getLong(f.offset);
        assertEquals(before, after, f + " back to the owner's value");
        assertEquals(1, owner.repairs());
        assertEquals(0, owner.heal(1), "nothing left to repair");
        assertEquals(0, peers[1 - f.owner].heal(1), "the other peer owns nothing of it");

        // and after one more pass of the other side, the link works in both directions, every ring
        pass(peers[1 - f.owner]);
        exchange(rt, android, 10, 2 * SLOTS);
    }

    @org.junit.jupiter.api.Test
    void aCellPutsAScribbledHeaderBackCountsItAndTheToolsReadTheRegionAgain() {
        RegionMemory memory = TestRegions.formatted(LAYOUT);
        Region rt = Region.attachCell(memory, Region.RT_PEER, true);
        Region android = Region.attachCell(memory, Region.ANDROID_PEER, false);
        exchange(rt, android, 1, 3);
        ByteBuffer b = memory.buffer().duplicate().order(ByteOrder.LITTLE_ENDIAN);
        byte[] formatted = new byte[HEADER_BYTES];
        b.get(0, formatted);

        // garbage over the first 48 bytes and one reserved word: no tool can validate the header
        for (int off = 0; off < 48; off += 4) {
            b.putInt(off, 0xDEADBEEF);
        }
        b.putInt(100, 1);
        org.junit.jupiter.api.Assertions.assertThrows(RegionFormatException.class, () -> Region.validateHeader(memory));

        assertEquals(13, rt.heal(1), "12 words of garbage and one reserved word put back");
        byte[] healed = new byte[HEADER_BYTES];
        b.get(0, healed);
        org.junit.jupiter.api.Assertions.assertArrayEquals(formatted, healed, "byte for byte the formatted header");
        assertEquals(LAYOUT, Region.validateHeader(memory));
        assertEquals(13, rt.headerRepairs());
        assertEquals(13, android.stateCounter(Region.RT_PEER, Counter.HEADER_REPAIRS), "the generic view reads it");
        assertEquals(13, b.getLong(LAYOUT.stateLineOffset(Region.RT_PEER) + HEADER_REPAIRS_OFFSET), "the shared count");
        assertEquals(0, android.heal(1), "the other cell found it healed");
        assertEquals(0, android.headerRepairs());

        // either cell heals it; a restarted cell carries its count on
        b.putInt(SLOT_BYTES_OFFSET, 64);
        assertEquals(1, android.heal(1));
        assertEquals(0, rt.heal(1));
        Region restarted = Region.attachCell(memory, Region.RT_PEER, true);
        assertEquals(13, restarted.headerRepairs());
        exchange(restarted, android, 2, 2 * SLOTS);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("ownedFields")
    void withoutHealingAMovedReadIndexStopsTheLinkAMovedWriteIndexDoesNot(Field f) {
        // The failure the healing exists for: shown for the two index fields, whose loss stops traffic.
        if (!f.name.endsWith("write_index") && !f.name.endsWith("read_index")) {
            return;
        }
        RegionMemory memory = TestRegions.formatted(LAYOUT);
        Region rt = Region.attachCell(memory, Region.RT_PEER, true);
        Region android = Region.attachCell(memory, Region.ANDROID_PEER, false);
        exchange(rt, android, 1, 3);
        memory.buffer().duplicate().order(ByteOrder.LITTLE_ENDIAN).putLong(f.offset, f.hostile);
        int ring = Integer.parseInt(f.name.substring(5, 6));
        Region producerPeer = f.name.endsWith("write_index") ? (f.owner == 0 ? rt : android) : (f.owner == 0 ? android : rt);
        Region consumerPeer = producerPeer == rt ? android : rt;
        pass(consumerPeer); // it reads the moved index first (a moved write index: a fault, it waits)
        byte[] frame = new byte[32];
        byte[] rx = new byte[LAYOUT.maxFrameBytes()];
        int delivered = 0;
        for (int i = 0; i < 2 * SLOTS; i++) {
            producerPeer.producer(ring).offer(frame);
            delivered += consumerPeer.consumer(ring).poll(rx) > 0 ? 1 : 0;
        }
        if (f.name.endsWith("write_index")) {
            // The consumer kept its read index, so the producer's next frame publishes its own
            // write index again: nothing lost, nothing waits for the heal.
            assertEquals(2 * SLOTS, delivered, f + " moved: the producer's own next index puts it right");
            assertEquals(0, consumerPeer.consumer(ring).get(Counter.RESYNCS));
            assertEquals(1, consumerPeer.consumer(ring).get(Counter.WRITE_INDEX_FAULTS));
        } else {
            assertEquals(0, delivered, f + " moved: nothing gets through until the owner heals");
        }
    }

    /** One pass of a peer's loop with nothing to send: it polls every data ring it reads. */
    private static void pass(Region peer) {
        byte[] rx = new byte[LAYOUT.maxFrameBytes()];
        for (int ring = 1; ring < RINGS; ring++) {
            while (peer.consumer(ring).poll(rx) > 0) {
                // nothing was sent: whatever comes out would fail the exchange below
            }
        }
    }

    /** {@code rounds} rounds of {@code perRound} frames each way on every data ring, all received in order. */
    private static void exchange(Region rt, Region android, int rounds, int perRound) {
        byte[] rx = new byte[LAYOUT.maxFrameBytes()];
        for (int round = 0; round < rounds; round++) {
            for (int ring = 1; ring < RINGS; ring++) {
                for (Region[] pair : new Region[][] {{rt, android}, {android, rt}}) {
                    ProducerRing out = pair[0].producer(ring);
                    ConsumerRing in = pair[1].consumer(ring);
                    for (int i = 0; i < perRound; i++) {
                        long seq = out.get(Counter.FRAMES_WRITTEN);
                        byte[] frame = TestRegions.rawFrame(seq, 24);
                        assertTrue(out.offer(frame), "ring " + ring + " accepts frame " + seq);
                        int n = in.poll(rx);
                        assertEquals(frame.length, n, "ring " + ring + " delivers frame " + seq);
                    }
                }
            }
        }
    }
}
