package org.rtdroid.codegen.runtime;

import __BOUNDS_CLASS__;

/**
 * The proto3 wire primitives under a generated codec (protoc-gen-xccjava copies this class next to
 * the code it generates; the generated codec extends it, so {@code FrameCodec.ERR_OVERSIZE} and
 * {@code FrameCodec.describe(code)} name these members). Static, allocation-free, over byte arrays.
 * A template: the plugin fills in the bounds class and the root message's body members.
 *
 * <p>Encoding is protobuf's canonical form (defaults omitted). Decoding refuses, with one of the
 * shared error classes of {@code bridge/vectors/README.md}, everything a hostile peer could use:
 * truncation, over-long varints, bad tags (field 0, over 32 bits, groups, wire types 6/7), a known
 * field with the wrong wire type or twice, values over their bound, invalid UTF-8. Every error is a
 * negative code; nothing throws. Readers return the position after what they read (or an error);
 * {@link #varintAt} then reads the value of a varint they accepted.
 */
public class ProtoWire {
    public static final int OK = 0;
    /** Input or encoding longer than the frame cap. */
    public static final int ERR_OVERSIZE = -1;
    public static final int ERR_TRUNCATED = -2;
    public static final int ERR_BAD_VARINT = -3;
    public static final int ERR_BAD_TAG = -4;
    public static final int ERR_WRONG_WIRE_TYPE = -5;
    public static final int ERR_DUPLICATE_FIELD = -6;
    public static final int ERR_OVER_BOUND = -7;
    public static final int ERR_INVALID_UTF8 = -8;
    public static final int ERR_NO_BODY = -9;
    /** {@code (off, len)} outside the given array. */
    public static final int ERR_BAD_LENGTH = -10;
    /** encode: the destination cannot hold the frame. */
    public static final int ERR_DST_TOO_SMALL = -11;
    /** The encoding is longer than a slot of this region carries (slot_bytes − 16); from ProducerRing.offerFrame. */
    public static final int ERR_FRAME_TOO_LONG = -12;

    protected static final int WT_VARINT = 0;
    protected static final int WT_FIXED64 = 1;
    protected static final int WT_LEN = 2;
    protected static final int WT_FIXED32 = 5;

    protected ProtoWire() {
    }

    /** A constant description of a result code. */
    public static String describe(int code) {
        switch (code) {
            case OK: return "ok";
            case ERR_OVERSIZE: return "oversize: longer than the " + __BOUNDS__.MAX_FRAME_BYTES + "-byte frame cap";
            case ERR_TRUNCATED: return "truncated: a tag, value or length-delimited field runs past its (sub)message";
            case ERR_BAD_VARINT: return "invalid varint: longer than 10 bytes or over 64 bits";
            case ERR_BAD_TAG: return "invalid tag: field number 0, over 32 bits or 5 bytes, a group or wire type 6/7";
            case ERR_WRONG_WIRE_TYPE: return "a known field has the wrong wire type";
            case ERR_DUPLICATE_FIELD: return "a known field appears twice, or two body members are present";
            case ERR_OVER_BOUND: return "a string, bytes, uint32 or int32 value is over its bound (the schema's .options file)";
            case ERR_INVALID_UTF8: return "a string field is not valid UTF-8 or contains U+0000";
            case ERR_NO_BODY: return "no body: none of __BODY_MEMBERS__ (unknown frame kind)";
            case ERR_BAD_LENGTH: return "offset/length outside the buffer";
            case ERR_DST_TOO_SMALL: return "the destination buffer is too small for the encoded frame";
            case ERR_FRAME_TOO_LONG: return "the encoded frame is longer than a slot carries (slot_bytes - 16)";
            default: return "unknown codec result";
        }
    }

    /**
     * The shared error class of {@code bridge/vectors/README.md} ("OVERSIZE", "TRUNCATED", ...,
     * "NO_BODY"), "OK", or "ARGUMENT" for the caller-side codes.
     */
    public static String errorClass(int code) {
        switch (code) {
            case OK: return "OK";
            case ERR_OVERSIZE: return "OVERSIZE";
            case ERR_TRUNCATED: return "TRUNCATED";
            case ERR_BAD_VARINT: return "BAD_VARINT";
            case ERR_BAD_TAG: return "BAD_TAG";
            case ERR_WRONG_WIRE_TYPE: return "WRONG_WIRE_TYPE";
            case ERR_DUPLICATE_FIELD: return "DUPLICATE_FIELD";
            case ERR_OVER_BOUND: return "OVER_BOUND";
            case ERR_INVALID_UTF8: return "INVALID_UTF8";
            case ERR_NO_BODY: return "NO_BODY";
            default: return "ARGUMENT";
        }
    }

    // ================================================================== sizes (tag: (field << 3) | wire type)

    protected static int varintSize(long v) {
        return 1 + (63 - Long.numberOfLeadingZeros(v | 1)) / 7;
    }

    protected static int uint64Size(int tag, long v) {
        return v == 0 ? 0 : varintSize(tag) + varintSize(v);
    }

    protected static int uint32Size(int tag, int v) {
        return uint64Size(tag, Integer.toUnsignedLong(v));
    }

    /** int32 and enums: a negative value is sign-extended to 10 bytes. */
    protected static int int32Size(int tag, int v) {
        return uint64Size(tag, v);
    }

    protected static int boolSize(int tag, boolean v) {
        return v ? varintSize(tag) + 1 : 0;
    }

    /** sint32: zigzag, so small negatives stay short (at most 5 bytes). */
    protected static int sint32Size(int tag, int v) {
        return uint64Size(tag, Integer.toUnsignedLong((v << 1) ^ (v >> 31)));
    }

    /** sint64: zigzag (at most 10 bytes). */
    protected static int sint64Size(int tag, long v) {
        return uint64Size(tag, (v << 1) ^ (v >> 63));
    }

    /** fixed32, sfixed32 and float (by its raw bits: -0.0f is written, as protobuf does). */
    protected static int fixed32Size(int tag, int bits) {
        return bits == 0 ? 0 : varintSize(tag) + 4;
    }

    protected static int floatSize(int tag, float v) {
        return fixed32Size(tag, Float.floatToRawIntBits(v));
    }

    /** fixed64, sfixed64 and double (by its raw bits). */
    protected static int fixed64Size(int tag, long bits) {
        return bits == 0 ? 0 : varintSize(tag) + 8;
    }

    protected static int doubleSize(int tag, double v) {
        return fixed64Size(tag, Double.doubleToRawLongBits(v));
    }

    protected static int bytesSize(int tag, BoundedBytes f) {
        int n = f.length();
        return n == 0 ? 0 : varintSize(tag) + varintSize(n) + n;
    }

    /** A present sub-message of {@code n} bytes (always written, even empty). */
    protected static int messageSize(int tag, int n) {
        return varintSize(tag) + varintSize(n) + n;
    }

    // ================================================================== writers (the caller sized the buffer)

    protected static int writeVarint(byte[] b, int pos, long v) {
        while ((v & ~0x7FL) != 0) {
            b[pos++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        b[pos++] = (byte) v;
        return pos;
    }

    protected static int writeUint64(byte[] b, int pos, int tag, long v) {
        if (v == 0) {
            return pos;
        }
        pos = writeVarint(b, pos, tag);
        return writeVarint(b, pos, v);
    }

    protected static int writeUint32(byte[] b, int pos, int tag, int v) {
        return writeUint64(b, pos, tag, Integer.toUnsignedLong(v));
    }

    protected static int writeInt32(byte[] b, int pos, int tag, int v) {
        return writeUint64(b, pos, tag, v);
    }

    protected static int writeBool(byte[] b, int pos, int tag, boolean v) {
        return writeUint64(b, pos, tag, v ? 1 : 0);
    }

    protected static int writeSint32(byte[] b, int pos, int tag, int v) {
        return writeUint64(b, pos, tag, Integer.toUnsignedLong((v << 1) ^ (v >> 31)));
    }

    protected static int writeSint64(byte[] b, int pos, int tag, long v) {
        return writeUint64(b, pos, tag, (v << 1) ^ (v >> 63));
    }

    protected static int writeFixed32(byte[] b, int pos, int tag, int bits) {
        if (bits == 0) {
            return pos;
        }
        pos = writeVarint(b, pos, tag);
        b[pos] = (byte) bits;
        b[pos + 1] = (byte) (bits >>> 8);
        b[pos + 2] = (byte) (bits >>> 16);
        b[pos + 3] = (byte) (bits >>> 24);
        return pos + 4;
    }

    protected static int writeFloat(byte[] b, int pos, int tag, float v) {
        return writeFixed32(b, pos, tag, Float.floatToRawIntBits(v));
    }

    protected static int writeFixed64(byte[] b, int pos, int tag, long bits) {
        if (bits == 0) {
            return pos;
        }
        pos = writeVarint(b, pos, tag);
        for (int i = 0; i < 8; i++) {
            b[pos + i] = (byte) (bits >>> (8 * i));
        }
        return pos + 8;
    }

    protected static int writeDouble(byte[] b, int pos, int tag, double v) {
        return writeFixed64(b, pos, tag, Double.doubleToRawLongBits(v));
    }

    protected static int writeBytes(byte[] b, int pos, int tag, BoundedBytes f) {
        int n = f.length();
        if (n == 0) {
            return pos;
        }
        pos = writeVarint(b, pos, tag);
        pos = writeVarint(b, pos, n);
        System.arraycopy(f.array(), 0, b, pos, n);
        return pos + n;
    }

    /** The tag and length prefix of a sub-message of {@code n} bytes. */
    protected static int writeMessageHeader(byte[] b, int pos, int tag, int n) {
        pos = writeVarint(b, pos, tag);
        return writeVarint(b, pos, n);
    }

    // ================================================================== readers

    /** The position after the varint at {@code pos}, or ERR_TRUNCATED / ERR_BAD_VARINT. */
    protected static int varintEnd(byte[] b, int pos, int end) {
        for (int i = 0; i < 10; i++) {
            if (pos >= end) {
                return ERR_TRUNCATED;
            }
            int x = b[pos++];
            if (i == 9 && (x & 0xFF) > 1) {
                return ERR_BAD_VARINT; // more than 64 bits, or an 11th byte
            }
            if (x >= 0) {
                return pos;
            }
        }
        return ERR_BAD_VARINT;
    }

    /** The value of a varint {@link #varintEnd} accepted. */
    protected static long varintAt(byte[] b, int pos) {
        long result = 0;
        for (int shift = 0; ; shift += 7) {
            int x = b[pos++];
            result |= (long) (x & 0x7F) << shift;
            if (x >= 0) {
                return result;
            }
        }
    }

    /**
     * A tag: at most 5 bytes (a varint32, as official protobuf reads it: vector bad_tag_6_bytes),
     * field number ≥ 1, below 2^32, wire type 0, 1, 2 or 5.
     */
    protected static int tagEnd(byte[] b, int pos, int end) {
        int next = varintEnd(b, pos, end);
        if (next < 0) {
            return next;
        }
        long tag = varintAt(b, pos);
        int wt = (int) (tag & 7);
        if (next - pos > 5 || (tag >>> 32) != 0 || (tag >>> 3) == 0
                || (wt != WT_VARINT && wt != WT_FIXED64 && wt != WT_LEN && wt != WT_FIXED32)) {
            return ERR_BAD_TAG;
        }
        return next;
    }

    /** A uint32 field: a varint below 2^32. */
    protected static int uint32End(byte[] b, int pos, int end) {
        int next = varintEnd(b, pos, end);
        if (next >= 0 && (varintAt(b, pos) >>> 32) != 0) {
            return ERR_OVER_BOUND;
        }
        return next;
    }

    /** An int32 or enum field: a varint whose 64-bit value is in the int32 range (negatives sign-extended). */
    protected static int int32End(byte[] b, int pos, int end) {
        int next = varintEnd(b, pos, end);
        if (next >= 0) {
            long v = varintAt(b, pos);
            if (v != (int) v) {
                return ERR_OVER_BOUND;
            }
        }
        return next;
    }

    /** A fixed32, sfixed32 or float field: four bytes before {@code end}. */
    protected static int fixed32End(byte[] b, int pos, int end) {
        return end - pos >= 4 ? pos + 4 : ERR_TRUNCATED;
    }

    /** A fixed64, sfixed64 or double field: eight bytes before {@code end}. */
    protected static int fixed64End(byte[] b, int pos, int end) {
        return end - pos >= 8 ? pos + 8 : ERR_TRUNCATED;
    }

    /** The little-endian value {@link #fixed32End} accepted. */
    protected static int fixed32At(byte[] b, int pos) {
        return (b[pos] & 0xFF) | (b[pos + 1] & 0xFF) << 8 | (b[pos + 2] & 0xFF) << 16 | (b[pos + 3] & 0xFF) << 24;
    }

    /** The little-endian value {@link #fixed64End} accepted. */
    protected static long fixed64At(byte[] b, int pos) {
        return (fixed32At(b, pos) & 0xFFFFFFFFL) | (long) fixed32At(b, pos + 4) << 32;
    }

    /** A sint32's value from its (uint32-checked) varint. */
    protected static int zigzag32(long v) {
        int n = (int) v;
        return (n >>> 1) ^ -(n & 1);
    }

    /** A sint64's value from its varint. */
    protected static long zigzag64(long v) {
        return (v >>> 1) ^ -(v & 1);
    }

    /** A length prefix whose length fits before {@code end}; the position after the prefix. */
    protected static int lengthEnd(byte[] b, int pos, int end) {
        int next = varintEnd(b, pos, end);
        if (next < 0) {
            return next;
        }
        long n = varintAt(b, pos);
        if (n < 0 || n > end - next) {
            return ERR_TRUNCATED;
        }
        return next;
    }

    /** Wire type and duplicate check of a known field ({@code bit} in {@code seen}); {@code pos} or an error. */
    protected static int checkKnown(int seen, int bit, int wt, int expectedWt, int pos) {
        if (wt != expectedWt) {
            return ERR_WRONG_WIRE_TYPE;
        }
        if ((seen & bit) != 0) {
            return ERR_DUPLICATE_FIELD;
        }
        return pos;
    }

    protected static int readString(byte[] b, int pos, int end, BoundedBytes dst) {
        int next = readBytes(b, pos, end, dst);
        return next >= 0 && !validUtf8(dst) ? ERR_INVALID_UTF8 : next;
    }

    protected static int readBytes(byte[] b, int pos, int end, BoundedBytes dst) {
        int at = lengthEnd(b, pos, end);
        if (at < 0) {
            return at;
        }
        int n = (int) varintAt(b, pos);
        if (n > dst.capacity()) {
            return ERR_OVER_BOUND;
        }
        dst.set(b, at, n);
        return at + n;
    }

    /** Skips an unknown field of wire type {@code wt} (tagEnd let only 0, 1, 2, 5 through). */
    protected static int skipField(byte[] b, int pos, int end, int wt) {
        switch (wt) {
            case WT_VARINT:
                return varintEnd(b, pos, end);
            case WT_FIXED64:
                return end - pos >= 8 ? pos + 8 : ERR_TRUNCATED;
            case WT_LEN: {
                int at = lengthEnd(b, pos, end);
                return at < 0 ? at : at + (int) varintAt(b, pos);
            }
            default:
                return end - pos >= 4 ? pos + 4 : ERR_TRUNCATED;
        }
    }

    // ================================================================== UTF-8

    protected static boolean validUtf8(BoundedBytes f) {
        return validUtf8(f.array(), 0, f.length());
    }

    /**
     * Strict UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF) without
     * U+0000 (C peers keep strings NUL-terminated; shared rule of bridge/vectors/README.md).
     */
    public static boolean validUtf8(byte[] b, int off, int len) {
        int i = off;
        int end = off + len;
        while (i < end) {
            int c = b[i] & 0xFF;
            if (c < 0x80) {
                if (c == 0) {
                    return false;
                }
                i++;
                continue;
            }
            int need;
            int lo = 0x80;
            int hi = 0xBF;
            if (c >= 0xC2 && c <= 0xDF) {
                need = 1;
            } else if (c >= 0xE0 && c <= 0xEF) {
                need = 2;
                if (c == 0xE0) {
                    lo = 0xA0;
                } else if (c == 0xED) {
                    hi = 0x9F;
                }
            } else if (c >= 0xF0 && c <= 0xF4) {
                need = 3;
                if (c == 0xF0) {
                    lo = 0x90;
                } else if (c == 0xF4) {
                    hi = 0x8F;
                }
            } else {
                return false;
            }
            if (end - i - 1 < need) {
                return false;
            }
            int c1 = b[i + 1] & 0xFF;
            if (c1 < lo || c1 > hi) {
                return false;
            }
            for (int k = 2; k <= need; k++) {
                int ck = b[i + k] & 0xFF;
                if (ck < 0x80 || ck > 0xBF) {
                    return false;
                }
            }
            i += need + 1;
        }
        return true;
    }
}
