package org.rtdroid.bridge.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Arrays;

/**
 * The frame decoder over any bytes the other cell could write into a slot (fuzz/README.md). It
 * must answer OK or one of its error codes, never throw; a frame it accepts re-encodes into bytes
 * it accepts again and that re-encode identically (one reading of the wire). Under `mvn test`
 * it replays the corpus (fuzz/corpus/frame); `make fuzz` fuzzes it.
 */
class FrameCodecFuzzTest {
    private final Frame frame = new Frame();
    private final Frame again = new Frame();
    private final byte[] first = new byte[Frame.MAX_FRAME_BYTES];
    private final byte[] second = new byte[Frame.MAX_FRAME_BYTES];

    @FuzzTest(maxDuration = "10s")
    void decode(byte[] data) {
        int rc = FrameCodec.decode(data, 0, data.length, frame);
        if (rc != FrameCodec.OK) {
            assertTrue(rc < 0, "error codes are negative: " + rc);
            assertNotNull(FrameCodec.errorClass(rc), "every error code has a class: " + rc);
            return;
        }
        int n = FrameCodec.encode(frame, first, 0);
        assertTrue(n >= 0, "an accepted frame re-encodes: " + FrameCodec.errorClass(n));
        assertEquals(FrameCodec.OK, FrameCodec.decode(first, 0, n, again), "the re-encoding decodes");
        int m = FrameCodec.encode(again, second, 0);
        assertArrayEquals(Arrays.copyOf(first, n), Arrays.copyOf(second, m), "re-encoding is stable");
    }
}
