package org.rtdroid.bridge;

import java.nio.ByteBuffer;

import org.rtdroid.bridge.codec.Frame;
import org.rtdroid.bridge.codec.FrameCodec;

/** Helpers: in-memory regions and frames for ring tests. */
final class TestRegions {
    private TestRegions() {
    }

    static RegionMemory formatted(RegionLayout layout) {
        RegionMemory memory = RegionMemory.wrap(ByteBuffer.allocateDirect(layout.regionBytes()));
        Region.format(memory, layout);
        return memory;
    }

    static RegionMemory formatted(int rings, int slots, int slotBytes) {
        return formatted(RegionLayout.of(rings, slots, slotBytes));
    }

    /** An encoded echo intent with {@code seq}, payload = 8 LE bytes of seq, repeated. */
    static int encodeEcho(long seq, int payloadBytes, Frame scratch, byte[] dst) {
        scratch.clear().seq(seq).sendTimeNanos(1_000 + seq);
        Frame.Intent intent = scratch.selectIntent();
        intent.action("org.rtdroid.echo.PING").channel("echo").senderPriority(80).correlationId(seq);
        byte[] payload = intent.payload().array();
        for (int i = 0; i < payloadBytes; i++) {
            payload[i] = (byte) (seq >>> (8 * (i & 7)));
        }
        intent.payload().length(payloadBytes);
        int n = FrameCodec.encode(scratch, dst, 0);
        if (n <= 0) {
            throw new AssertionError("encode failed: " + FrameCodec.describe(n));
        }
        return n;
    }

    /** Raw ring-level frame: 8 LE bytes of seq, then a pattern derived from it. */
    static byte[] rawFrame(long seq, int bytes) {
        byte[] b = new byte[bytes];
        for (int i = 0; i < bytes; i++) {
            b[i] = i < 8 ? (byte) (seq >>> (8 * i)) : (byte) (seq * 31 + i);
        }
        return b;
    }

    static long seqOf(byte[] b) {
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = (v << 8) | (b[i] & 0xFFL);
        }
        return v;
    }
}
