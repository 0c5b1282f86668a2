package org.rtdroid.bridge.codec;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.rtdroid.xcc.XccBounds;

/** Every malformed input the decoder must refuse, each with its error class. */
class FrameCodecRejectTest {
    private final Frame frame = new Frame();

    private static byte[] b(int... v) {
        byte[] out = new byte[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = (byte) v[i];
        }
        return out;
    }

    private int decode(byte[] data) {
        return FrameCodec.decode(data, 0, data.length, frame);
    }

    @Test
    void validMinimalFramesDecode() {
        assertEquals(FrameCodec.OK, decode(b(0x08, 0x01, 0x62, 0x00)));
        assertEquals(Frame.BODY_CONTROL, frame.bodyKind());
        assertEquals(1, frame.seq());
    }

    @Test
    void badLengthsAreRefused() {
        byte[] data = b(0x62, 0x00);
        assertEquals(FrameCodec.ERR_BAD_LENGTH, FrameCodec.decode(data, 1, 2, frame));
        assertEquals(FrameCodec.ERR_BAD_LENGTH, FrameCodec.decode(data, -1, 1, frame));
        assertEquals(FrameCodec.ERR_BAD_LENGTH, FrameCodec.decode(data, 0, -1, frame));
        assertEquals(FrameCodec.ERR_OVERSIZE, FrameCodec.decode(new byte[497], 0, 497, frame));
        // a length-delimited field longer than what is left of its message
        assertEquals(FrameCodec.ERR_TRUNCATED, decode(b(0x62, 0x05, 0x08, 0x01)));
        // a nested field longer than its sub-message, though the frame has more bytes
        assertEquals(FrameCodec.ERR_TRUNCATED, decode(b(0x62, 0x02, 0x1A, 0x05, 0x08, 0x01, 0x00, 0x00, 0x00)));
        // a length over 2^31
        assertEquals(FrameCodec.ERR_TRUNCATED, decode(b(0x62, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F)));
    }

    @Test
    void truncatedInputIsRefused() {
        assertEquals(FrameCodec.ERR_TRUNCATED, decode(b(0x08)));             // tag without value
        assertEquals(FrameCodec.ERR_TRUNCATED, decode(b(0x08, 0x80)));       // varint cut
        assertEquals(FrameCodec.ERR_TRUNCATED, decode(b(0x80)));             // tag cut
        assertEquals(FrameCodec.ERR_TRUNCATED, decode(b(0x62)));             // length missing
        assertEquals(FrameCodec.ERR_TRUNCATED, decode(b(0x62, 0x00, 0x79, 1, 2, 3))); // fixed64 cut
        assertEquals(FrameCodec.ERR_TRUNCATED, decode(b(0x62, 0x00, 0x7D, 1, 2)));    // fixed32 cut
    }

    @Test
    void invalidVarintsAreRefused() {
        assertEquals(FrameCodec.ERR_BAD_VARINT,
                decode(b(0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x62, 0x00)));
        assertEquals(FrameCodec.ERR_BAD_VARINT,
                decode(b(0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02, 0x62, 0x00)));
        // ten bytes with the last one 1: exactly 2^64 - 1, fine
        assertEquals(FrameCodec.OK,
                decode(b(0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x62, 0x00)));
        assertEquals(-1L, frame.seq());
    }

    @Test
    void badTagsAreRefused() {
        assertEquals(FrameCodec.ERR_BAD_TAG, decode(b(0x00, 0x00, 0x62, 0x00)));   // field 0
        assertEquals(FrameCodec.ERR_BAD_TAG, decode(b(0x62, 0x00, 0x7B)));         // group start (15, wt 3)
        assertEquals(FrameCodec.ERR_BAD_TAG, decode(b(0x62, 0x00, 0x7C)));         // group end
        assertEquals(FrameCodec.ERR_BAD_TAG, decode(b(0x62, 0x00, 0x7F, 0x00)));   // wire type 7
        assertEquals(FrameCodec.ERR_BAD_TAG,
                decode(b(0x62, 0x00, 0xF8, 0xFF, 0xFF, 0xFF, 0x7F, 0x00)));        // tag over 32 bits
    }

    @Test
    void wrongWireTypesAreRefused() {
        assertEquals(FrameCodec.ERR_WRONG_WIRE_TYPE, decode(b(0x0A, 0x00, 0x62, 0x00)));     // seq as bytes
        assertEquals(FrameCodec.ERR_WRONG_WIRE_TYPE, decode(b(0x60, 0x00)));                 // control as varint
        assertEquals(FrameCodec.ERR_WRONG_WIRE_TYPE, decode(b(0x52, 0x02, 0x08, 0x01)));     // action as varint
        assertEquals(FrameCodec.ERR_WRONG_WIRE_TYPE, decode(b(0x62, 0x05, 0x0D, 1, 2, 3, 4))); // kind as fixed32
    }

    @Test
    void duplicateFieldsAreRefused() {
        assertEquals(FrameCodec.ERR_DUPLICATE_FIELD, decode(b(0x08, 0x01, 0x08, 0x02, 0x62, 0x00)));
        assertEquals(FrameCodec.ERR_DUPLICATE_FIELD, decode(b(0x62, 0x00, 0x52, 0x00)));    // two body members
        assertEquals(FrameCodec.ERR_DUPLICATE_FIELD, decode(b(0x62, 0x00, 0x62, 0x00)));    // same member twice
        assertEquals(FrameCodec.ERR_DUPLICATE_FIELD, decode(b(0x62, 0x04, 0x08, 0x01, 0x08, 0x02)));
        // unknown fields may repeat
        assertEquals(FrameCodec.OK, decode(b(0x62, 0x00, 0x78, 0x01, 0x78, 0x02)));
    }

    @Test
    void unknownFrameKindHasNoBody() {
        assertEquals(FrameCodec.ERR_NO_BODY, decode(new byte[0]));
        assertEquals(FrameCodec.ERR_NO_BODY, decode(b(0x08, 0x05)));
        assertEquals(FrameCodec.ERR_NO_BODY, decode(b(0x72, 0x02, 0x08, 0x01))); // field 14
        assertEquals("NO_BODY", FrameCodec.errorClass(FrameCodec.ERR_NO_BODY));
    }

    @Test
    void stringsAndBytesOverTheirBoundsAreRefused() {
        byte[] action = new byte[2 + 2 + 64];
        action[0] = 0x52;
        action[1] = 66;
        action[2] = 0x0A;
        action[3] = 64; // 64 bytes: one over the 63 a string carries
        java.util.Arrays.fill(action, 4, action.length, (byte) 'a');
        assertEquals(FrameCodec.ERR_OVER_BOUND, decode(action));
        action[1] = 65;
        action[3] = 63;
        assertEquals(FrameCodec.OK, FrameCodec.decode(action, 0, action.length - 1, frame));
        byte[] data = new byte[4 + 3 + 385];
        data[0] = 0x6A;
        data[1] = (byte) 0x84;
        data[2] = 0x03; // 388
        data[3] = 0x32;
        data[4] = (byte) 0x81;
        data[5] = 0x03; // 385
        assertEquals(FrameCodec.ERR_OVER_BOUND, FrameCodec.decode(data, 0, 6 + 385, frame));
        // uint32 at 2^32 and an int32 outside the int32 range
        assertEquals(FrameCodec.ERR_OVER_BOUND, decode(b(0x62, 0x06, 0x10, 0x80, 0x80, 0x80, 0x80, 0x10)));
        assertEquals(FrameCodec.ERR_OVER_BOUND, decode(b(0x5A, 0x06, 0x10, 0x80, 0x80, 0x80, 0x80, 0x08)));
        // -1 as int32: 10-byte sign extension is fine
        assertEquals(FrameCodec.OK,
                decode(b(0x5A, 0x0B, 0x10, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01)));
        assertEquals(-1, frame.message().what());
    }

    @Test
    void invalidUtf8IsRefused() {
        int[][] bad = {{0x65, 0x00, 0x68}, {0xFF}, {0xC0, 0x80}, {0xED, 0xA0, 0x80}, {0xE2, 0x82}, {0xF4, 0x90, 0x80, 0x80}, {0x80}};
        for (int[] s : bad) {
            byte[] data = new byte[4 + s.length];
            data[0] = 0x52;
            data[1] = (byte) (2 + s.length);
            data[2] = 0x12; // channel
            data[3] = (byte) s.length;
            for (int i = 0; i < s.length; i++) {
                data[4 + i] = (byte) s[i];
            }
            assertEquals(FrameCodec.ERR_INVALID_UTF8, decode(data), java.util.Arrays.toString(s));
        }
        byte[] ok = "x€😀".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(FrameCodec.validUtf8(ok, 0, ok.length));
    }

    @Test
    void encoderRefusesInvalidFrames() {
        byte[] dst = new byte[496];
        assertEquals(FrameCodec.ERR_NO_BODY, FrameCodec.encode(frame.clear(), dst, 0));
        frame.selectIntent().channel().set(new byte[] {(byte) 0xC0, (byte) 0x80}, 0, 2);
        assertEquals(FrameCodec.ERR_INVALID_UTF8, FrameCodec.encode(frame, dst, 0));
        frame.selectIntent().channel("echo");
        assertEquals(FrameCodec.ERR_DST_TOO_SMALL, FrameCodec.encode(frame, new byte[4], 0));
        Frame.Control c = frame.selectControl();
        c.text().setString("t".repeat(XccBounds.MAX_CONTROL_TEXT_BYTES));
        c.subject().setString("s".repeat(XccBounds.MAX_CONTROL_SUBJECT_BYTES));
        c.kind(-1).code(-1);
        c.selectStats().framesIn(-1).framesOut(-1).droppedCorrupt(-1).droppedUndeliverable(-1).droppedFull(-1)
                .resyncs(-1).peerRestarts(-1);
        c.selectService().releases(-1).deadlineMisses(-1).worstLatenessNanos(-1).index(-1).count(-1)
                .name().setString("n".repeat(XccBounds.MAX_SERVICE_INFO_NAME_BYTES));
        c.service().state().setString("RUNNING".repeat(3).substring(0, XccBounds.MAX_SERVICE_INFO_STATE_BYTES));
        // seq 11 + send time 11 + tag 1 + length 2 + control (kind 11, code 6, subject 65, text 258,
        // stats 2 + 77, service 2 + 127) = 573
        assertEquals(573, FrameCodec.encodedSize(frame.seq(-1).sendTimeNanos(-1)));
        assertEquals(FrameCodec.ERR_OVERSIZE, FrameCodec.encode(frame, dst, 0), "over the 496-byte cap");
        assertThrows(IllegalArgumentException.class, () -> c.subject().setString("x".repeat(64)));
    }

    @Test
    void describeIsConstantForEveryCode() {
        for (int code = 0; code >= -12; code--) {
            assertNotEquals("unknown codec result", FrameCodec.describe(code));
            assertSame(FrameCodec.describe(code), FrameCodec.describe(code));
        }
    }
}
