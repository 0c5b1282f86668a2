package org.rtdroid.bridge;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rtdroid.bridge.RegionDescriptor.Counter;
import org.rtdroid.bridge.codec.Frame;

/** Region format, attach protocol, state table and the ordinary ring paths. */
class RegionTest {

    @Test
    void layoutMatchesTheSpecFormulas() {
        RegionLayout l = RegionLayout.of(3, 64, 512);
        assertEquals(64 * 3 + 3 * (64 + 64 * 512), l.sectionBytes());
        assertEquals(256 + 2 * l.sectionBytes(), l.regionBytes());
        assertEquals(496, l.maxFrameBytes());
        assertEquals(256, l.consumerLineOffset(0, 0));
        assertEquals(256 + l.sectionBytes() + 64 * 3, l.ringHeaderOffset(1, 0));
        assertEquals(l.ringHeaderOffset(0, 1) + 64 + 3 * 512, l.slotOffset(0, 1, 64 + 3));
        assertThrows(RegionFormatException.class, () -> RegionLayout.of(1, 64, 512));
        assertThrows(RegionFormatException.class, () -> RegionLayout.of(3, 48, 512));
        assertThrows(RegionFormatException.class, () -> RegionLayout.of(3, 64, 500));
    }

    @Test
    void formatWritesAHeaderThatValidates() {
        RegionMemory memory = TestRegions.formatted(3, 16, 256);
        ByteBuffer b = memory.buffer();
        assertEquals(RegionDescriptor.MAGIC, b.getInt(0));
        assertEquals('X', b.get(0));
        assertEquals('1', b.get(3));
        assertEquals(RegionLayout.of(3, 16, 256), Region.validateHeader(memory));
        Region observer = Region.observe(memory);
        assertEquals(Region.STATE_RESET, observer.peerState(0));
        assertEquals(2, observer.counters(1, 2).get(Counter.RING_CLASS));
        assertEquals(0, observer.counters(1, 0).get(Counter.RING_CLASS));
    }

    @Test
    void attachCellRunsTheAttachProtocol() {
        RegionMemory memory = TestRegions.formatted(3, 16, 256);
        Region rt = Region.attachCell(memory, Region.RT_PEER, true);
        assertEquals(Region.STATE_READY, rt.peerState(0));
        assertEquals(1, rt.peerEpoch(0));
        assertEquals(1, rt.peerHeartbeat(0));
        assertEquals(Region.STATE_RESET, rt.peerState(1));
        rt.heartbeat();
        assertEquals(2, rt.peerHeartbeat(0));
        Region again = Region.attachCell(memory, Region.RT_PEER, true);
        assertEquals(2, again.peerEpoch(0), "every attach is a new epoch");
        assertEquals(3, again.peerHeartbeat(0), "the heartbeat carries on");
        rt.setState(Region.STATE_STOPPING);
        assertEquals(Region.STATE_STOPPING, again.peerState(0));
        assertThrows(IllegalArgumentException.class, () -> rt.setState(7));
        assertThrows(IllegalArgumentException.class, () -> Region.attachCell(memory, 2, true));
    }

    @Test
    void aStillHeartbeatMakesThePeerUnresponsive() {
        RegionMemory memory = TestRegions.formatted(2, 4, 128);
        Region rt = Region.attachCell(memory, 0, true);
        Region android = Region.attachCell(memory, 1, true);
        long t = 1_000_000_000_000L;
        long timeout = Region.DEFAULT_PEER_TIMEOUT_NANOS;
        assertFalse(rt.peerUnresponsive(t, timeout));
        assertFalse(rt.peerUnresponsive(t + timeout, timeout));
        assertTrue(rt.peerUnresponsive(t + timeout + 1, timeout));
        android.heartbeat();
        assertFalse(rt.peerUnresponsive(t + timeout + 2, timeout), "a moved heartbeat restarts the clock");
        assertTrue(rt.peerUnresponsive(t + 2 * timeout + 3, timeout));
    }

    @Test
    void framesFlowBothWaysThroughEveryRing() {
        RegionMemory memory = TestRegions.formatted(4, 8, 128);
        Region rt = Region.attachCell(memory, Region.RT_PEER, true);
        Region android = Region.attachCell(memory, Region.ANDROID_PEER, true);
        byte[] dst = new byte[rt.layout().maxFrameBytes()];
        long seq = 0;
        for (int lap = 0; lap < 5; lap++) { // several wraps of the 8-slot rings
            for (int ring = 0; ring < 4; ring++) {
                for (int k = 0; k < 5; k++) {
                    byte[] a = TestRegions.rawFrame(++seq, 1 + (int) (seq % 112));
                    assertTrue(rt.producer(ring).offer(a));
                    byte[] c = TestRegions.rawFrame(++seq, 1 + (int) (seq % 112));
                    assertTrue(android.producer(ring).offer(c));
                    int n = android.consumer(ring).poll(dst);
                    assertArrayEquals(a, java.util.Arrays.copyOf(dst, n));
                    n = rt.consumer(ring).poll(dst);
                    assertArrayEquals(c, java.util.Arrays.copyOf(dst, n));
                }
            }
        }
        RingCounters c = rt.counters(0, 2);
        assertEquals(25, c.get(Counter.FRAMES_WRITTEN));
        assertEquals(25, c.get(Counter.FRAMES_ACCEPTED));
        assertEquals(25, c.get(Counter.READ_INDEX));
        assertEquals(0, c.get(Counter.FRAMES_CORRUPT) + c.get(Counter.RESYNCS) + c.get(Counter.FRAMES_DROPPED_FULL));
    }

    @Test
    void fullRingRefusesAndCounts() {
        RegionMemory memory = TestRegions.formatted(2, 4, 128);
        Region rt = Region.attachCell(memory, 0, true);
        Region android = Region.attachCell(memory, 1, true);
        for (int i = 0; i < 4; i++) {
            assertTrue(rt.producer(1).offer(TestRegions.rawFrame(i, 20)));
        }
        assertFalse(rt.producer(1).offer(TestRegions.rawFrame(9, 20)));
        assertEquals(1, rt.counters(0, 1).get(Counter.FRAMES_DROPPED_FULL));
        assertEquals(4, rt.producer(1).backlog());
        byte[] dst = new byte[112];
        assertEquals(20, android.consumer(1).poll(dst));
        assertTrue(rt.producer(1).offer(TestRegions.rawFrame(10, 20)));
    }

    @Test
    void managementAttachOwnsOnlyRingZeroAndNeverTouchesState() {
        RegionMemory memory = TestRegions.formatted(3, 8, 256);
        Region rt = Region.attachCell(memory, 0, true);
        Region proxy = Region.attachCell(memory, 1, false);
        assertThrows(IllegalStateException.class, () -> proxy.producer(0));
        assertThrows(IllegalStateException.class, () -> proxy.consumer(0));
        // An answer left for a previous CLI run is stale for the next one.
        assertTrue(rt.producer(0).offer(TestRegions.rawFrame(1, 30)));
        Region cli = Region.attachManagement(memory, 1);
        assertEquals(1, cli.counters(0, 0).get(Counter.STALE_SKIPPED));
        assertEquals(1, cli.peerEpoch(1), "management attach leaves the epoch alone");
        assertThrows(IllegalStateException.class, () -> cli.producer(1));
        assertThrows(IllegalStateException.class, cli::heartbeat);
        assertTrue(cli.producer(0).offer(TestRegions.rawFrame(2, 30)));
        byte[] dst = new byte[240];
        assertEquals(30, rt.consumer(0).poll(dst));
        assertTrue(rt.producer(0).offer(TestRegions.rawFrame(3, 31)));
        assertEquals(31, cli.consumer(0).poll(dst));
        assertEquals(3, TestRegions.seqOf(dst));
    }

    @Test
    void dataRingForFollowsTheSpec() {
        assertEquals(1, Region.dataRingFor(99, 3));
        assertEquals(1, Region.dataRingFor(50, 3));
        assertEquals(2, Region.dataRingFor(49, 3));
        assertEquals(2, Region.dataRingFor(0, 3));
        assertEquals(1, Region.dataRingFor(0, 2));
        assertEquals(7, Region.dataRingFor(0, 8));
        assertThrows(IllegalArgumentException.class, () -> Region.dataRingFor(100, 3));
        assertThrows(IllegalArgumentException.class, () -> Region.dataRingFor(-1, 3));
    }

    @Test
    void alignedOnlyBackendCarriesFramesOfEveryLength() {
        RegionLayout layout = RegionLayout.of(2, 8, 128);
        RegionMemory memory = RegionMemory.wrapAlignedOnly(ByteBuffer.allocateDirect(layout.regionBytes()));
        Region.format(memory, layout);
        Region rt = Region.attachCell(memory, 0, true);
        Region android = Region.attachCell(memory, 1, true);
        byte[] dst = new byte[112];
        for (int len = 1; len <= 112; len++) {
            byte[] f = TestRegions.rawFrame(len, len);
            assertTrue(rt.producer(1).offer(f));
            assertEquals(len, android.consumer(1).poll(dst));
            assertArrayEquals(f, java.util.Arrays.copyOf(dst, len));
        }
    }

    @Test
    void mapFileSharesOneRegionBetweenTwoMappings(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("region");
        RegionLayout layout = RegionLayout.of(3, 16, 512);
        org.rtdroid.bridge.tools.RegionTool.format(file, layout);
        assertEquals(layout.regionBytes(), Files.size(file));
        try (RegionMemory a = RegionMemory.mapFile(file); RegionMemory b = RegionMemory.mapFile(file)) {
            Region rt = Region.attachCell(a, 0, true);
            Region android = Region.attachCell(b, 1, false);
            Frame frame = new Frame();
            byte[] scratch = new byte[496];
            int n = TestRegions.encodeEcho(7, 40, frame, scratch);
            assertEquals(n, android.producer(1).offerFrame(frame, scratch));
            Frame got = new Frame();
            assertEquals(n, rt.consumer(1).pollFrame(new byte[496], got));
            assertEquals(7, got.seq());
            assertTrue(got.intent().channel().contentEquals("echo"));
            String json = org.rtdroid.bridge.tools.RegionTool.dump(a);
            assertTrue(json.contains("\"state_name\":\"READY\""), json);
            assertTrue(json.contains("\"frames_accepted\":1"), json);
        }
    }

    @Test
    void mapFileRefusesAFileTooSmallForAHeader(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("tiny");
        Files.write(file, new byte[16]);
        java.io.IOException e = assertThrows(java.io.IOException.class, () -> RegionMemory.mapFile(file));
        assertTrue(e.getMessage().contains("16 bytes"), e.getMessage());
    }

    @Test
    void mapPhysicalRefusesUnalignedRanges() {
        assertThrows(IllegalArgumentException.class,
                () -> RegionMemory.mapPhysical(Path.of("/dev/mem"), 0x1000_0010L, 4096));
        assertThrows(IllegalArgumentException.class,
                () -> RegionMemory.mapPhysical(Path.of("/dev/mem"), 0x1000_0000L, 5000));
    }

    @Test
    void mapPhysicalMapsACharacterDevice() throws Exception {
        // /dev/zero stands in for /dev/mem: a character device whose size reads as 0, which
        // FileChannel.map cannot map (it tries to extend it); a MAP_SHARED mapping of it is
        // ordinary shared memory, so a whole region fits and works aligned-only. (Its shared
        // object is as long as the mapping, so the offset here is 0; the offset path is the
        // regular-file test below and mmap's own.)
        RegionLayout layout = RegionLayout.of(2, 4, 128);
        long size = 8192;
        try (RegionMemory m = RegionMemory.mapPhysical(Path.of("/dev/zero"), 0, size)) {
            assertTrue(m.alignedOnly());
            assertEquals(size, m.sizeBytes());
            Region.format(m, layout);
            Region rt = Region.attachCell(m, 0, true);
            Region android = Region.attachCell(m, 1, true);
            assertTrue(rt.producer(1).offer(TestRegions.rawFrame(3, 77)));
            byte[] dst = new byte[112];
            assertEquals(77, android.consumer(1).poll(dst));
            assertEquals(3, TestRegions.seqOf(dst));
        }
    }

    @Test
    void mapPhysicalOfARegularFileMapsTheRangeAtTheOffset(@TempDir Path dir) throws Exception {
        Path image = dir.resolve("mem");
        byte[] bytes = new byte[3 * 4096];
        bytes[4096] = 42;
        Files.write(image, bytes);
        try (RegionMemory m = RegionMemory.mapPhysical(image, 4096, 8192)) {
            assertEquals(42, m.buffer().get(0));
        }
        assertThrows(java.io.IOException.class, () -> RegionMemory.mapPhysical(image, 8192, 8192));
    }

    @Test
    void backoffSpinsThenYieldsThenSleepsDoubling() {
        Backoff b = new Backoff(2, 1, 1_000, 4_000);
        b.idle();
        b.idle();
        b.idle(); // yield
        assertEquals(1_000, b.currentSleepNanos());
        b.idle(); // sleep 1 us
        assertEquals(2_000, b.currentSleepNanos());
        b.idle();
        b.idle();
        assertEquals(4_000, b.currentSleepNanos(), "capped at maxSleepNanos");
        b.reset();
        assertEquals(1_000, b.currentSleepNanos());
        assertThrows(IllegalArgumentException.class, () -> new Backoff(1, 1, 0, 10));
    }
}
