package org.rtdroid.bridge;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.management.ManagementFactory;

import org.junit.jupiter.api.Test;
import org.rtdroid.bridge.codec.Frame;
import org.rtdroid.bridge.codec.FrameCodec;

/** The real-time paths allocate nothing after start-up: offer, poll, encode, decode, counters. */
class ZeroAllocationTest {
    private static final int ROUNDS = 100_000;

    private final RegionMemory memory = TestRegions.formatted(3, 64, 512);
    private final Region rt = Region.attachCell(memory, Region.RT_PEER, true);
    private final Region android = Region.attachCell(memory, Region.ANDROID_PEER, false);
    private final Frame out = new Frame();
    private final Frame in = new Frame();
    private final byte[] encoded = new byte[496];
    private final byte[] received = new byte[496];
    private final byte[] rawOut = new byte[200];
    private long checksum;
    // The Android cell's ring 1 write index, scribbled now and then: the reader's fault path.
    private final java.nio.ByteBuffer raw = memory.buffer().duplicate().order(java.nio.ByteOrder.LITTLE_ENDIAN);
    private final int androidWriteIndex =
            Region.validateHeader(memory).ringHeaderOffset(Region.ANDROID_PEER, 1) + RegionDescriptor.WRITE_INDEX_OFFSET;

    /** One round: an intent each way through data rings, raw frames, a control with stats. */
    private void round(long i) {
        out.clear().seq(i).sendTimeNanos(i * 3);
        Frame.Intent intent = out.selectIntent();
        intent.senderPriority((int) (i % 100)).correlationId(i);
        intent.channel().set(encoded, 0, 0);
        intent.payload().length(32);
        intent.payload().array()[0] = (byte) i;
        int ring = Region.dataRingFor(intent.senderPriority(), 3);
        if (android.producer(ring).offerFrame(out, encoded) <= 0) {
            throw new AssertionError("offerFrame failed");
        }
        int n = rt.consumer(ring).pollFrame(received, in);
        if (n <= 0 || in.seq() != i || in.intent().payload().array()[0] != (byte) i) {
            throw new AssertionError("round " + i + " lost its frame");
        }
        checksum += in.intent().correlationId();
        // The RT side replies with a control frame on its management ring.
        out.clear().seq(i).selectControl().kind(Frame.Control.STATS).selectStats().framesIn(i).resyncs(i);
        int len = FrameCodec.encode(out, encoded, 0);
        if (!rt.producer(0).offer(encoded, 0, len)) {
            throw new AssertionError("offer failed");
        }
        // Nobody owns Android's consumer line 0 here; read it as a raw ring through a second rt ring.
        rawOut[0] = (byte) i;
        if (!rt.producer(1).offer(rawOut, 0, 100)) {
            throw new AssertionError("raw offer failed");
        }
        if (android.consumer(1).poll(received) != 100) {
            throw new AssertionError("raw poll failed");
        }
        if (FrameCodec.decode(encoded, 0, len, in) != FrameCodec.OK || in.control().stats().resyncs() != i) {
            throw new AssertionError("decode failed");
        }
        checksum += in.control().stats().framesIn();
        if ((i & 1023) == 512) { // an incredible write index: a fault the reader waits on, then healed
            long kept = raw.getLong(androidWriteIndex);
            raw.putLong(androidWriteIndex, kept + 1000);
            if (rt.consumer(1).poll(received) != 0) {
                throw new AssertionError("a frame read at an incredible write index");
            }
            raw.putLong(androidWriteIndex, kept);
        }
        if ((i & 1023) == 0) {
            rt.heartbeat();
            rt.peerRestarted();
            rt.consumer(1).countUndeliverable();
        }
        checksum += in.intent().channel().contentEquals("echo") ? 1 : 0;
    }

    @Test
    void ringAndCodecPathsAllocateNothing() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertTrue(threads.isThreadAllocatedMemorySupported());
        threads.setThreadAllocatedMemoryEnabled(true);
        // The RT cell's management ring fills (nobody reads it here): keep it drained by a reader
        // attached as the management agent.
        Region cli = Region.attachManagement(memory, Region.ANDROID_PEER);
        long i = 0;
        for (; i < 300_000; i++) { // warm-up: let the JIT compile everything
            round(i);
            cli.consumer(0).poll(received);
        }
        // A one-off deoptimisation can still allocate: up to three windows, one must be clean (a real
        // per-round allocation shows in each).
        StringBuilder windows = new StringBuilder();
        long allocated = -1;
        for (int w = 0; w < 3 && allocated != 0; w++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            for (long end = i + ROUNDS; i < end; i++) {
                round(i);
                cli.consumer(0).poll(received);
            }
            allocated = threads.getCurrentThreadAllocatedBytes() - before;
            windows.append(w == 0 ? "" : ", ").append(allocated);
        }
        assertEquals(0, allocated, "bytes allocated by windows of " + ROUNDS + " rounds: " + windows + " (checksum " + checksum + ")");
    }
}
