package org.rtdroid.bridge;

import static org.junit.jupiter.api.Assertions.*;
import static org.rtdroid.bridge.RegionDescriptor.*;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.rtdroid.bridge.codec.Frame;
import org.rtdroid.bridge.codec.FrameCodec;

/**
 * Everything the other cell can get wrong, on purpose or not (issue: "Hostile and faulty input,
 * each with a test"). The reader under test is the RT cell (peer 0) reading the Android cell's
 * ring 1, unless a test says otherwise.
 */
class HostileInputTest {
    private final RegionMemory memory = TestRegions.formatted(3, 8, 256);
    private final RegionLayout layout = Region.validateHeader(memory);
    private final ByteBuffer raw = memory.buffer();
    private final Region rt = Region.attachCell(memory, Region.RT_PEER, true);
    private final Region android = Region.attachCell(memory, Region.ANDROID_PEER, false);
    private final byte[] dst = new byte[layout.maxFrameBytes()];

    private int slot(long index) {
        return layout.slotOffset(Region.ANDROID_PEER, 1, index);
    }

    private int androidWriteIndex() {
        return layout.ringHeaderOffset(Region.ANDROID_PEER, 1) + WRITE_INDEX_OFFSET;
    }

    private void send(long seq) {
        assertTrue(android.producer(1).offer(TestRegions.rawFrame(seq, 40)));
    }

    private void expectNext(long seq) {
        int n = rt.consumer(1).poll(dst);
        assertEquals(40, n, "a valid frame follows the bad one");
        assertEquals(seq, TestRegions.seqOf(dst));
    }

    // ------------------------------------------------------------------ bad length

    @Test
    void slotLengthZeroIsCorruptAndSkipped() {
        send(1);
        send(2);
        raw.putInt(slot(0) + FRAME_BYTES_OFFSET, 0);
        expectNext(2);
        assertEquals(1, rt.consumer(1).get(Counter.FRAMES_CORRUPT));
        assertEquals(1, rt.counters(1, 1).get(Counter.FRAMES_CORRUPT), "counted in the region, for the CLI");
    }

    @Test
    void slotLengthBeyondTheSlotIsCorruptAndNeverReadPastIt() {
        send(1);
        send(2);
        send(3);
        raw.putInt(slot(0) + FRAME_BYTES_OFFSET, layout.slotBytes() - 15); // one past the cap
        raw.putInt(slot(1) + FRAME_BYTES_OFFSET, -1);                      // 0xFFFFFFFF
        expectNext(3);
        assertEquals(2, rt.consumer(1).get(Counter.FRAMES_CORRUPT));
    }

    @Test
    void producerRefusesBadLengthsBeforeTouchingTheRing() {
        ProducerRing p = android.producer(1);
        assertThrows(IllegalArgumentException.class, () -> p.offer(new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> p.offer(new byte[layout.maxFrameBytes() + 1]));
        assertThrows(IndexOutOfBoundsException.class, () -> p.offer(new byte[10], 5, 10));
        assertEquals(0, p.get(Counter.WRITE_INDEX));
        assertEquals(0, rt.consumer(1).available());
    }

    // ------------------------------------------------------------------ protobuf above the ring

    @Test
    void truncatedProtobufIsDroppedAndCountedUndeliverable() {
        Frame frame = new Frame();
        byte[] enc = new byte[496];
        int n = TestRegions.encodeEcho(1, 32, frame, enc);
        assertTrue(android.producer(1).offer(enc, 0, n - 5)); // ring-valid, protobuf-truncated
        n = TestRegions.encodeEcho(2, 32, frame, enc);
        assertTrue(android.producer(1).offer(enc, 0, n));
        Frame got = new Frame();
        assertEquals(FrameCodec.ERR_TRUNCATED, FrameCodec.decode(enc, 0, n - 5, got));
        assertEquals(n, rt.consumer(1).pollFrame(dst, got));
        assertEquals(2, got.seq());
        assertEquals(1, rt.counters(1, 1).get(Counter.FRAMES_UNDELIVERABLE));
        assertEquals(2, rt.counters(1, 1).get(Counter.FRAMES_ACCEPTED), "the ring itself accepted both");
    }

    @Test
    void invalidProtobufIsDroppedAndCountedUndeliverable() {
        byte[] garbage = {(byte) 0x08, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF,
            (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x01}; // 11-byte varint
        assertTrue(android.producer(1).offer(garbage));
        assertEquals(0, rt.consumer(1).pollFrame(dst, new Frame()));
        assertEquals(1, rt.consumer(1).get(Counter.FRAMES_UNDELIVERABLE));
    }

    @Test
    void unknownFrameKindIsDroppedAndCounted() {
        // seq = 1, then field 14 (not a body member) as a length-delimited field: no body.
        byte[] unknownKind = {0x08, 0x01, 0x72, 0x00};
        assertTrue(android.producer(1).offer(unknownKind));
        assertEquals(FrameCodec.ERR_NO_BODY, FrameCodec.decode(unknownKind, 0, 4, new Frame()));
        assertEquals(0, rt.consumer(1).pollFrame(dst, new Frame()));
        assertEquals(1, rt.counters(1, 1).get(Counter.FRAMES_UNDELIVERABLE));
    }

    @Test
    void undeclaredChannelDropsAreCountedPerRingWhateverTheChannel() {
        // The proxy decides a channel is undeclared or a sender not allowed; the ring counts it.
        Frame frame = new Frame();
        byte[] enc = new byte[496];
        Frame got = new Frame();
        for (int i = 0; i < 3; i++) {
            frame.clear().seq(i + 1).selectIntent().channel("not.declared." + i).action("x");
            assertTrue(android.producer(1).offerFrame(frame, enc) > 0);
            assertTrue(rt.consumer(1).pollFrame(dst, got) > 0);
            assertFalse(got.intent().channel().contentEquals("echo"));
            rt.consumer(1).countUndeliverable();
        }
        assertEquals(3, rt.counters(1, 1).get(Counter.FRAMES_UNDELIVERABLE));
        assertTrue(org.rtdroid.bridge.tools.RegionTool.dump(memory).contains("\"frames_undeliverable\":3"));
    }

    // ------------------------------------------------------------------ oversize

    @Test
    void oversizePayloadIsRefusedEverywhere() {
        Frame frame = new Frame();
        Frame.Intent intent = frame.selectIntent();
        assertThrows(IllegalArgumentException.class, () -> intent.payload().set(new byte[225], 0, 225));
        // On the wire: an intent whose payload is 225 bytes (one over the bound) is refused.
        byte[] wire = new byte[240];
        int p = 0;
        wire[p++] = 0x52; // field 10 (intent), wire type 2
        wire[p++] = (byte) 0xE4; // length 228 = 3 + 225
        wire[p++] = 0x01;
        wire[p++] = 0x22; // field 4 (payload), wire type 2
        wire[p++] = (byte) 0xE1; // 225
        wire[p++] = 0x01;
        int n = p + 225;
        assertEquals(FrameCodec.ERR_OVER_BOUND, FrameCodec.decode(wire, 0, n, new Frame()));
        assertTrue(android.producer(1).offer(wire, 0, n));
        assertEquals(0, rt.consumer(1).pollFrame(dst, new Frame()));
        assertEquals(1, rt.consumer(1).get(Counter.FRAMES_UNDELIVERABLE));
        // A frame that is within its bounds but longer than this region's slot is refused
        // before the ring is touched.
        RegionMemory small = TestRegions.formatted(2, 4, 128);
        Region smallRt = Region.attachCell(small, 0, true);
        frame.clear().selectIntent().payload(new byte[200]);
        assertEquals(FrameCodec.ERR_FRAME_TOO_LONG, smallRt.producer(1).offerFrame(frame, new byte[496]));
        assertEquals(0, smallRt.producer(1).get(Counter.WRITE_INDEX));
        assertEquals(0, smallRt.producer(1).get(Counter.FRAMES_DROPPED_FULL));
    }

    // ------------------------------------------------------------------ header

    private void patchHeader(int offset, int value) {
        raw.putInt(offset, value);
        raw.putInt(HEADER_CRC32_OFFSET, Region.headerCrc(raw)); // a consistent CRC: the field rule must catch it
    }

    private void expectRefused(String field) {
        RegionFormatException e = assertThrows(RegionFormatException.class,
                () -> Region.attachCell(memory, 0, true));
        assertEquals(field, e.field(), e.getMessage());
        assertTrue(e.getMessage().contains(field), e.getMessage());
    }

    @Test
    void wrongMagicIsRefused() {
        patchHeader(MAGIC_OFFSET, 0x32434358);
        expectRefused("magic");
    }

    @Test
    void wrongLayoutVersionIsRefused() {
        raw.putShort(LAYOUT_VERSION_OFFSET, (short) 2);
        raw.putInt(HEADER_CRC32_OFFSET, Region.headerCrc(raw));
        expectRefused("layout_version");
    }

    @Test
    void headerCrcMismatchIsRefused() {
        raw.putInt(SLOTS_PER_RING_OFFSET, 16); // changed after formatting, CRC not updated
        expectRefused("header_crc32");
    }

    @Test
    void wrongGeometryIsRefused() {
        int[][] cases = {
            {RINGS_PER_PEER_OFFSET, 9}, {RINGS_PER_PEER_OFFSET, 1}, {SLOTS_PER_RING_OFFSET, 6}, {SLOTS_PER_RING_OFFSET, 8192},
            {SLOT_BYTES_OFFSET, 100}, {SLOT_BYTES_OFFSET, 8192}, {PEER_COUNT_OFFSET, 3},
            {SECTION_BYTES_OFFSET, layout.sectionBytes() + 64}, {SECTION_OFFSET1_OFFSET, 512},
            {REGION_BYTES_OFFSET, layout.regionBytes() + 64}, {REGION_BYTES_OFFSET, layout.regionBytes() - 64},
            {STATE_TABLE_OFFSET_OFFSET, 192}, {SLOTS_PER_RING_OFFSET, 16},
        };
        String[] fields = {"rings_per_peer", "rings_per_peer", "slots_per_ring", "slots_per_ring", "slot_bytes",
            "slot_bytes", "peer_count", "section_bytes", "section_offset[1]", "region_bytes", "region_bytes",
            "state_table_offset", "section_bytes"};
        byte[] pristine = new byte[HEADER_BYTES];
        raw.get(0, pristine);
        for (int i = 0; i < cases.length; i++) {
            raw.put(0, pristine);
            patchHeader(cases[i][0], cases[i][1]);
            expectRefused(fields[i]);
        }
        raw.put(0, pristine);
        assertDoesNotThrow(() -> Region.attachCell(memory, 0, true));
    }

    @Test
    void regionLargerThanTheMappingIsRefused() {
        ByteBuffer shorter = raw.duplicate().limit(layout.regionBytes() - 4096).slice();
        RegionFormatException e = assertThrows(RegionFormatException.class,
                () -> Region.validateHeader(RegionMemory.wrap(shorter)));
        assertEquals("region_bytes", e.field());
    }

    // ------------------------------------------------------------------ indices

    @Test
    void writeIndexTooFarAheadIsAFaultUntilTheProducerHasBeatenTwiceThenResyncs() {
        send(1);
        raw.putLong(androidWriteIndex(), 1 + 8 + 3); // more than S ahead of read index 0
        assertEquals(0, rt.consumer(1).poll(dst));
        assertEquals(0, rt.consumer(1).poll(dst));
        assertEquals(1, rt.counters(1, 1).get(Counter.WRITE_INDEX_FAULTS), "one fault, however often it is seen");
        assertEquals(0, rt.counters(1, 1).get(Counter.RESYNCS), "the reader waits for the producer's heal");
        assertEquals(0, rt.consumer(1).get(Counter.READ_INDEX));
        android.heartbeat(); // one beat: the heal may still be under way
        assertEquals(0, rt.consumer(1).poll(dst));
        assertEquals(0, rt.consumer(1).get(Counter.RESYNCS));
        android.heartbeat(); // two beats without a heal: the producer stands by it
        assertEquals(0, rt.consumer(1).poll(dst));
        assertEquals(1, rt.counters(1, 1).get(Counter.RESYNCS));
        assertEquals(12, rt.consumer(1).get(Counter.READ_INDEX), "the reader skipped to the write index");
        assertEquals(0, rt.consumer(1).poll(dst));
        assertEquals(0, rt.consumer(1).get(Counter.FRAMES_CORRUPT));
        assertEquals(1, rt.consumer(1).get(Counter.WRITE_INDEX_FAULTS));
    }

    @Test
    void writeIndexMovingBackwardsIsAFaultThenResyncs() {
        for (int i = 1; i <= 5; i++) {
            send(i);
            expectNext(i);
        }
        raw.putLong(androidWriteIndex(), 2);
        assertEquals(0, rt.consumer(1).poll(dst));
        assertEquals(1, rt.consumer(1).get(Counter.WRITE_INDEX_FAULTS));
        assertEquals(5, rt.consumer(1).get(Counter.READ_INDEX));
        android.heartbeat();
        android.heartbeat();
        assertEquals(0, rt.consumer(1).poll(dst));
        assertEquals(1, rt.consumer(1).get(Counter.RESYNCS));
        assertEquals(2, rt.consumer(1).get(Counter.READ_INDEX));
    }

    @Test
    void framesUnreadWhenTheWriteIndexIsScribbledAreReadAfterTheProducerHealsIt() {
        for (int i = 1; i <= 4; i++) {
            send(i);
        }
        expectNext(1);
        long seq = 2;
        for (long scribble : new long[] {0, 1 + 8 + 3, -1L}) { // backwards, too far ahead, huge
            raw.putLong(androidWriteIndex(), scribble);
            assertEquals(0, rt.consumer(1).poll(dst), "nothing is read from an incredible index");
            assertEquals(seq - 1, rt.consumer(1).get(Counter.READ_INDEX), "the read index stays");
            assertEquals(1, android.heal(1), "the producer puts its write index back");
            android.heartbeat(); // heal, then beat: its loop's order
            android.heartbeat();
            expectNext(seq++);
        }
        assertEquals(0, rt.consumer(1).poll(dst));
        assertEquals(3, rt.consumer(1).get(Counter.WRITE_INDEX_FAULTS));
        assertEquals(0, rt.consumer(1).get(Counter.RESYNCS) + rt.consumer(1).get(Counter.FRAMES_CORRUPT), "no frame lost");
        send(5);
        expectNext(5);
    }

    @Test
    void theManagementAgentsRingHasNoHeartbeatToWaitOnAndIsResynchronisedAtOnce() {
        Region agent = Region.attachManagement(memory, Region.ANDROID_PEER);
        assertTrue(agent.producer(Region.MANAGEMENT_RING).offer(TestRegions.rawFrame(1, 40)));
        raw.putLong(layout.ringHeaderOffset(Region.ANDROID_PEER, Region.MANAGEMENT_RING) + WRITE_INDEX_OFFSET, 1 + 8 + 3);
        assertEquals(0, rt.consumer(Region.MANAGEMENT_RING).poll(dst));
        assertEquals(1, rt.consumer(Region.MANAGEMENT_RING).get(Counter.WRITE_INDEX_FAULTS));
        assertEquals(1, rt.consumer(Region.MANAGEMENT_RING).get(Counter.RESYNCS));
        assertEquals(12, rt.consumer(Region.MANAGEMENT_RING).get(Counter.READ_INDEX));
    }

    @Test
    void hugeWriteIndexResyncsWithoutReadingOutsideTheRegion() {
        raw.putLong(androidWriteIndex(), -1L); // 2^64 - 1
        assertEquals(0, rt.consumer(1).poll(dst));
        assertEquals(0, rt.consumer(1).get(Counter.RESYNCS));
        android.heartbeat();
        android.heartbeat();
        assertEquals(0, rt.consumer(1).poll(dst));
        assertEquals(1, rt.consumer(1).get(Counter.RESYNCS));
        // The reader now sits at 2^64-1; a frame claiming that index is read from slot (2^64-1) mod S.
        int s = layout.slotOffset(Region.ANDROID_PEER, 1, -1L);
        assertEquals(layout.ringHeaderOffset(1, 1) + RING_HEADER_BYTES + 7 * layout.slotBytes(), s);
    }

    @Test
    void readIndexOutsideTheRingIsNotCreditedByTheProducer() {
        int readIndex = layout.consumerLineOffset(Region.RT_PEER, 1) + READ_INDEX_OFFSET;
        send(1);
        raw.putLong(readIndex, 50); // the consumer claims more than was written
        assertFalse(android.producer(1).offer(TestRegions.rawFrame(2, 40)));
        raw.putLong(readIndex, -1L);
        assertFalse(android.producer(1).offer(TestRegions.rawFrame(2, 40)));
        assertEquals(2, android.producer(1).get(Counter.FRAMES_DROPPED_FULL));
        raw.putLong(readIndex, 1);
        assertTrue(android.producer(1).offer(TestRegions.rawFrame(2, 40)));
    }

    // ------------------------------------------------------------------ torn writes

    @Test
    void tornWriteFailsTheCrcAndIsSkipped() {
        send(1);
        send(2);
        raw.put(slot(0) + SLOT_HEADER_BYTES + 20, (byte) 0x5A); // half-written frame bytes
        expectNext(2);
        assertEquals(1, rt.counters(1, 1).get(Counter.FRAMES_CORRUPT));
        assertEquals(1, rt.counters(1, 1).get(Counter.FRAMES_ACCEPTED));
    }

    @Test
    void slotFromAnEarlierLapIsSkipped() {
        send(1);
        send(2);
        raw.putLong(slot(0) + SLOT_INDEX_OFFSET, 0 - 8); // slot_index of the previous lap
        expectNext(2);
        assertEquals(1, rt.consumer(1).get(Counter.FRAMES_CORRUPT));
    }

    @Test
    void frameChangedDuringTheCopyNeverPassesValidation() throws Exception {
        // A hostile writer scribbles on published slots while the reader polls: every frame the
        // reader returns must be exactly one the producer wrote (the CRC is checked on the
        // private copy, so a change during or after the copy cannot slip through).
        RegionMemory m = TestRegions.formatted(2, 4, 128);
        RegionLayout l = Region.validateHeader(m);
        Region reader = Region.attachCell(m, 0, true);
        Region writer = Region.attachCell(m, 1, true);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        java.util.concurrent.CountDownLatch scribbling = new java.util.concurrent.CountDownLatch(1);
        Thread scribbler = new Thread(() -> {
            ByteBuffer b = m.buffer().duplicate();
            Random r = new Random(7);
            for (long n = 0; !stop.get(); n++) {
                int off = l.slotOffset(1, 1, r.nextInt(4)) + SLOT_HEADER_BYTES + r.nextInt(40);
                b.put(off, (byte) r.nextInt());
                if (n == 1000) {
                    scribbling.countDown();
                }
            }
        });
        scribbler.start();
        assertTrue(scribbling.await(30, java.util.concurrent.TimeUnit.SECONDS));
        byte[] d = new byte[112];
        long accepted = 0;
        // Run until the scribbler has spoilt enough frames (it competes for a CPU on a loaded host).
        long deadline = System.nanoTime() + 20_000_000_000L;
        try {
            for (long seq = 1; seq <= 20_000 || (reader.consumer(1).get(Counter.FRAMES_CORRUPT) < 20
                    && System.nanoTime() < deadline); seq++) {
                byte[] f = TestRegions.rawFrame(seq, 40);
                if (!writer.producer(1).offer(f)) {
                    reader.consumer(1).poll(d);
                    continue;
                }
                int n = reader.consumer(1).poll(d);
                if (n > 0) {
                    accepted++;
                    long s = TestRegions.seqOf(d);
                    byte[] expected = TestRegions.rawFrame(s, 40);
                    if (n != 40 || !Arrays.equals(expected, Arrays.copyOf(d, n))) {
                        failure.set(new AssertionError("accepted a scribbled frame, seq " + s));
                        break;
                    }
                }
            }
        } finally {
            stop.set(true);
            scribbler.join();
        }
        assertNull(failure.get());
        RingCounters c = reader.counters(1, 1);
        assertTrue(c.get(Counter.FRAMES_CORRUPT) > 0, "the scribbler did hit frames: " + c);
        assertEquals(accepted, c.get(Counter.FRAMES_ACCEPTED));
    }

    // ------------------------------------------------------------------ peer restart

    @Test
    void peerRestartMidStreamSkipsStaleFramesAndIsDetected() {
        Frame frame = new Frame();
        byte[] enc = new byte[496];
        Frame got = new Frame();
        // RT sends 1..3 to Android; Android reads 1 and 2, then restarts.
        for (int seq = 1; seq <= 3; seq++) {
            frame.clear().seq(seq).selectControl().kind(Frame.Control.HEARTBEAT);
            assertTrue(rt.producer(1).offerFrame(frame, enc) > 0);
        }
        assertTrue(android.consumer(1).pollFrame(dst, got) > 0);
        assertEquals(1, got.seq());
        assertTrue(android.consumer(1).pollFrame(dst, got) > 0);
        assertEquals(2, got.seq());
        assertFalse(rt.peerRestarted());
        Region restarted = Region.attachCell(memory, Region.ANDROID_PEER, false);
        assertEquals(2, restarted.peerEpoch(Region.ANDROID_PEER));
        assertTrue(rt.peerRestarted(), "the RT cell sees the new epoch");
        assertEquals(1, rt.peerRestarts());
        assertFalse(rt.peerRestarted(), "once per restart");
        assertEquals(1, restarted.counters(0, 1).get(Counter.STALE_SKIPPED), "frame 3 was for the previous incarnation");
        assertEquals(0, restarted.consumer(1).pollFrame(dst, got), "stale frame 3 is not delivered late");
        frame.clear().seq(4).selectControl().kind(2);
        assertTrue(rt.producer(1).offerFrame(frame, enc) > 0);
        assertTrue(restarted.consumer(1).pollFrame(dst, got) > 0);
        assertEquals(4, got.seq());
        // The restarted producer kept its write index: the RT reader carries on without a resync.
        assertTrue(restarted.producer(1).offer(TestRegions.rawFrame(5, 40)));
        expectNext(5);
        assertEquals(0, rt.consumer(1).get(Counter.RESYNCS));
    }

    @Test
    void restartedPeerThatResetsItsWriteIndexIsResynchronised() {
        for (int i = 1; i <= 6; i++) {
            send(i);
            expectNext(i);
        }
        // A buggy restart: the Android side zeroes its section (write index 0).
        raw.putLong(androidWriteIndex(), 0);
        Region restarted = Region.attachCell(memory, Region.ANDROID_PEER, false);
        assertEquals(0, rt.consumer(1).poll(dst));
        assertEquals(0, rt.consumer(1).get(Counter.RESYNCS), "a fault first: the producer may heal it");
        restarted.heartbeat();
        restarted.heartbeat(); // it beat twice and stands by write index 0
        assertEquals(0, rt.consumer(1).poll(dst));
        assertEquals(1, rt.consumer(1).get(Counter.RESYNCS));
        Region again = Region.attachCell(memory, Region.ANDROID_PEER, false);
        assertTrue(again.producer(1).offer(TestRegions.rawFrame(7, 40)));
        expectNext(7);
    }

    // ------------------------------------------------------------------ flood

    @Test
    void floodGivesBoundedCountedDropsAndNothingCorrupted() throws Exception {
        final long attempts = 300_000;
        AtomicBoolean done = new AtomicBoolean();
        long[] accepted = new long[1];
        AtomicReference<String> failure = new AtomicReference<>();
        Thread rtProxy = new Thread(() -> {
            ConsumerRing in = rt.consumer(1);
            byte[] d = new byte[layout.maxFrameBytes()];
            long last = 0;
            int polls = 0;
            while (true) {
                boolean finished = done.get();
                int n = in.poll(d);
                if (n == 0) {
                    if (finished) {
                        break;
                    }
                    continue;
                }
                long seq = TestRegions.seqOf(d);
                if (seq <= last || !Arrays.equals(TestRegions.rawFrame(seq, n), Arrays.copyOf(d, n))) {
                    failure.compareAndSet(null, "bad frame after " + last + ": seq " + seq + ", " + n + " bytes");
                }
                last = seq;
                accepted[0]++;
                if (++polls % 64 == 0) {
                    Thread.yield(); // a slow drainer
                }
            }
        });
        rtProxy.start();
        ProducerRing out = android.producer(1);
        long placed = 0;
        for (long seq = 1; seq <= attempts; seq++) {
            if (out.offer(TestRegions.rawFrame(seq, 8 + (int) (seq % 200)))) {
                placed++;
            }
        }
        done.set(true);
        rtProxy.join();
        assertNull(failure.get());
        RingCounters c = rt.counters(1, 1);
        assertEquals(placed, c.get(Counter.FRAMES_WRITTEN));
        assertEquals(attempts - placed, c.get(Counter.FRAMES_DROPPED_FULL), "every refused frame is counted");
        assertTrue(c.get(Counter.FRAMES_DROPPED_FULL) > 0, "the flood did overrun the ring: " + c);
        assertEquals(placed, accepted[0], "every placed frame arrived intact");
        assertEquals(placed, c.get(Counter.FRAMES_ACCEPTED));
        assertEquals(0, c.get(Counter.FRAMES_CORRUPT) + c.get(Counter.RESYNCS), c.toString());
        assertTrue(c.get(Counter.WRITE_INDEX) - c.get(Counter.READ_INDEX) <= layout.slotsPerRing());
    }
}
