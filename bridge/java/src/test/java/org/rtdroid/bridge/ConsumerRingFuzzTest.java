package org.rtdroid.bridge;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.ByteBuffer;
import org.rtdroid.bridge.codec.Frame;
import org.rtdroid.bridge.codec.FrameCodec;

/**
 * The region consumer over a region image the other cell scribbled on (fuzz/README.md): the
 * header is validated or refused with a {@link RegionFormatException}; past it, hostile indices,
 * lengths, CRCs and slot bytes are dropped and counted, never thrown, and a poll never hands out
 * more than a slot's frame. Inputs that fail the header check are retried behind a valid
 * header (2 rings, 4 slots of 128 bytes) so the fuzzer reaches the rings, as the C target does;
 * each image is read first with the indices as found, then as a cell that attaches to it.
 */
class ConsumerRingFuzzTest {
    private static final RegionLayout SMALL = RegionLayout.of(2, 4, 128);

    @FuzzTest(maxDuration = "10s")
    void consume(byte[] data) {
        if (data.length < 256 || data.length > (1 << 20)) {
            return;
        }
        RegionMemory memory = memoryOf(data);
        try {
            Region.validateHeader(memory);
        } catch (RegionFormatException e) {
            if (data.length < SMALL.regionBytes()) {
                return;
            }
            memory = memoryOf(data);
            Region.format(memory, SMALL);
            memory.buffer().duplicate().position(128).put(data, 128, data.length - 128);
        }
        Region region;
        try {
            region = Region.openWithoutAttach(memory, data[data.length - 1] & 1);
        } catch (RegionFormatException e) {
            return;
        }
        drain(region);
        // then as a cell attaching to it: attach re-derives the private indices it trusts
        try {
            drain(Region.attachCell(memory, data[data.length - 1] & 1, true));
        } catch (RegionFormatException e) {
            // refused with the field that breaks its rule: fine
        }
    }

    private static void drain(Region region) {
        byte[] dst = new byte[region.layout().maxFrameBytes()];
        Frame frame = new Frame();
        for (int ring = 0; ring < region.layout().rings(); ring++) {
            ConsumerRing in = region.consumer(ring);
            for (int i = 0; i < 2 * region.layout().slotsPerRing() + 2; i++) {
                int n = in.poll(dst);
                assertTrue(n >= 0 && n <= dst.length, "poll length " + n);
                if (n > 0 && FrameCodec.decode(dst, 0, n, frame) != FrameCodec.OK) {
                    in.countUndeliverable();
                }
            }
        }
    }

    private static RegionMemory memoryOf(byte[] data) {
        ByteBuffer b = ByteBuffer.allocateDirect(data.length);
        b.put(data).clear();
        return RegionMemory.wrap(b);
    }
}
