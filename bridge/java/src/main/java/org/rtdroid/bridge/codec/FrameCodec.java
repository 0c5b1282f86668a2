package org.rtdroid.bridge.codec;

/**
 * Hand-rolled proto3 codec for {@code rtdroid.xcc.v1.Frame} over byte arrays: no allocation, no
 * reflection, output byte-identical to protobuf-java's canonical encoding (fields in number order,
 * defaults omitted, a set oneof member or sub-message always written).
 *
 * <p>Decoding accepts what protobuf accepts from a well-behaved peer (any field order, non-minimal
 * varints, explicit defaults, unknown fields with wire types 0, 1, 2, 5 skipped, open enums) and
 * refuses, with one of the shared error classes of {@code bridge/vectors/README.md}, everything a
 * hostile peer could use: input over the 496-byte cap, truncation, over-long varints, bad tags
 * (field 0, over 32 bits, groups, wire types 6/7), a known field with the wrong wire type, a known
 * field twice (or two body members), values over their bound (strings, bytes, uint32, int32),
 * invalid UTF-8, and a frame without a body. Every error is a negative code; nothing throws.
 */
public final class FrameCodec {
    public static final int OK = 0;
    /** Input or encoding longer than {@link Frame#MAX_FRAME_BYTES}. */
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

    private static final int WT_VARINT = 0;
    private static final int WT_FIXED64 = 1;
    private static final int WT_LEN = 2;
    private static final int WT_FIXED32 = 5;
    /** The seen-mask bit all members of Frame.body share. */
    private static final int BODY_BIT = 1 << 31;

    private FrameCodec() {
    }

    /** A constant description of a result code. */
    public static String describe(int code) {
        switch (code) {
            case OK: return "ok";
            case ERR_OVERSIZE: return "oversize: longer than the 496-byte frame cap";
            case ERR_TRUNCATED: return "truncated: a tag, value or length-delimited field runs past its (sub)message";
            case ERR_BAD_VARINT: return "invalid varint: longer than 10 bytes or over 64 bits";
            case ERR_BAD_TAG: return "invalid tag: field number 0, over 32 bits or 5 bytes, a group or wire type 6/7";
            case ERR_WRONG_WIRE_TYPE: return "a known field has the wrong wire type";
            case ERR_DUPLICATE_FIELD: return "a known field appears twice, or two body members are present";
            case ERR_OVER_BOUND: return "a string, bytes, uint32 or int32 value is over its bound (xcc.options)";
            case ERR_INVALID_UTF8: return "a string field is not valid UTF-8 or contains U+0000";
            case ERR_NO_BODY: return "no body: none of intent, message, control, deploy_chunk (unknown frame kind)";
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

    // ================================================================== encoding

    /**
     * Encodes {@code frame} at {@code dst[off]}. Returns the encoded length, or a negative code
     * (ERR_NO_BODY, ERR_INVALID_UTF8, ERR_OVERSIZE, ERR_DST_TOO_SMALL) with nothing promised about dst.
     */
    public static int encode(Frame frame, byte[] dst, int off) {
        int size = encodedSize(frame);
        if (size < 0) {
            return size;
        }
        if (size > Frame.MAX_FRAME_BYTES) {
            return ERR_OVERSIZE;
        }
        if (off < 0 || off > dst.length - size) {
            return ERR_DST_TOO_SMALL;
        }
        int pos = off;
        pos = writeUint64(dst, pos, 1, frame.seq());
        pos = writeUint64(dst, pos, 2, frame.sendTimeNanos());
        int kind = frame.bodyKind();
        pos = writeVarint(dst, pos, (kind << 3) | WT_LEN);
        switch (kind) {
            case Frame.BODY_INTENT:
                pos = writeVarint(dst, pos, intentSize(frame.intent()));
                pos = writeIntent(dst, pos, frame.intent());
                break;
            case Frame.BODY_MESSAGE:
                pos = writeVarint(dst, pos, messageSize(frame.message()));
                pos = writeMessage(dst, pos, frame.message());
                break;
            case Frame.BODY_CONTROL:
                pos = writeVarint(dst, pos, controlSize(frame.control()));
                pos = writeControl(dst, pos, frame.control());
                break;
            default:
                pos = writeVarint(dst, pos, deployChunkSize(frame.deployChunk()));
                pos = writeDeployChunk(dst, pos, frame.deployChunk());
                break;
        }
        return pos - off;
    }

    /** The encoded length of {@code frame}, or ERR_NO_BODY / ERR_INVALID_UTF8. */
    public static int encodedSize(Frame frame) {
        int body;
        switch (frame.bodyKind()) {
            case Frame.BODY_INTENT: {
                Frame.Intent i = frame.intent();
                if (!validUtf8(i.action()) || !validUtf8(i.channel()) || !validUtf8(i.sender())) {
                    return ERR_INVALID_UTF8;
                }
                body = intentSize(i);
                break;
            }
            case Frame.BODY_MESSAGE:
                if (!validUtf8(frame.message().channel())) {
                    return ERR_INVALID_UTF8;
                }
                body = messageSize(frame.message());
                break;
            case Frame.BODY_CONTROL: {
                Frame.Control c = frame.control();
                if (!validUtf8(c.subject()) || !validUtf8(c.text())
                        || (c.hasService() && (!validUtf8(c.service().name()) || !validUtf8(c.service().state())))) {
                    return ERR_INVALID_UTF8;
                }
                body = controlSize(c);
                break;
            }
            case Frame.BODY_DEPLOY_CHUNK:
                if (!validUtf8(frame.deployChunk().bundle())) {
                    return ERR_INVALID_UTF8;
                }
                body = deployChunkSize(frame.deployChunk());
                break;
            default:
                return ERR_NO_BODY;
        }
        return uint64Size(frame.seq()) + uint64Size(frame.sendTimeNanos()) + 1 + varintSize(body) + body;
    }

    private static int intentSize(Frame.Intent i) {
        return bytesSize(i.action()) + bytesSize(i.channel()) + uint32Size(i.senderPriority())
                + bytesSize(i.payload()) + uint64Size(i.correlationId()) + bytesSize(i.sender())
                + uint64Size(i.rtReceiveNanos()) + uint64Size(i.rtReplyNanos());
    }

    private static int writeIntent(byte[] b, int pos, Frame.Intent i) {
        pos = writeBytes(b, pos, 1, i.action());
        pos = writeBytes(b, pos, 2, i.channel());
        pos = writeUint32(b, pos, 3, i.senderPriority());
        pos = writeBytes(b, pos, 4, i.payload());
        pos = writeUint64(b, pos, 5, i.correlationId());
        pos = writeBytes(b, pos, 6, i.sender());
        pos = writeUint64(b, pos, 7, i.rtReceiveNanos());
        return writeUint64(b, pos, 8, i.rtReplyNanos());
    }

    private static int messageSize(Frame.Message m) {
        return bytesSize(m.channel()) + int32Size(m.what()) + int32Size(m.arg1()) + int32Size(m.arg2())
                + bytesSize(m.payload()) + uint64Size(m.correlationId());
    }

    private static int writeMessage(byte[] b, int pos, Frame.Message m) {
        pos = writeBytes(b, pos, 1, m.channel());
        pos = writeInt32(b, pos, 2, m.what());
        pos = writeInt32(b, pos, 3, m.arg1());
        pos = writeInt32(b, pos, 4, m.arg2());
        pos = writeBytes(b, pos, 5, m.payload());
        return writeUint64(b, pos, 6, m.correlationId());
    }

    private static int controlSize(Frame.Control c) {
        int s = int32Size(c.kind()) + uint32Size(c.code()) + bytesSize(c.subject()) + bytesSize(c.text());
        if (c.hasStats()) {
            int n = statsSize(c.stats());
            s += 1 + varintSize(n) + n;
        }
        if (c.hasService()) {
            int n = serviceSize(c.service());
            s += 1 + varintSize(n) + n;
        }
        return s;
    }

    private static int writeControl(byte[] b, int pos, Frame.Control c) {
        pos = writeInt32(b, pos, 1, c.kind());
        pos = writeUint32(b, pos, 2, c.code());
        pos = writeBytes(b, pos, 3, c.subject());
        pos = writeBytes(b, pos, 4, c.text());
        if (c.hasStats()) {
            pos = writeVarint(b, pos, (5 << 3) | WT_LEN);
            pos = writeVarint(b, pos, statsSize(c.stats()));
            pos = writeStats(b, pos, c.stats());
        }
        if (c.hasService()) {
            pos = writeVarint(b, pos, (6 << 3) | WT_LEN);
            pos = writeVarint(b, pos, serviceSize(c.service()));
            pos = writeService(b, pos, c.service());
        }
        return pos;
    }

    private static int statsSize(Frame.Stats s) {
        return uint64Size(s.framesIn()) + uint64Size(s.framesOut()) + uint64Size(s.droppedCorrupt())
                + uint64Size(s.droppedUndeliverable()) + uint64Size(s.droppedFull()) + uint64Size(s.resyncs())
                + uint64Size(s.peerRestarts());
    }

    private static int writeStats(byte[] b, int pos, Frame.Stats s) {
        pos = writeUint64(b, pos, 1, s.framesIn());
        pos = writeUint64(b, pos, 2, s.framesOut());
        pos = writeUint64(b, pos, 3, s.droppedCorrupt());
        pos = writeUint64(b, pos, 4, s.droppedUndeliverable());
        pos = writeUint64(b, pos, 5, s.droppedFull());
        pos = writeUint64(b, pos, 6, s.resyncs());
        return writeUint64(b, pos, 7, s.peerRestarts());
    }

    private static int serviceSize(Frame.ServiceInfo s) {
        return bytesSize(s.name()) + bytesSize(s.state()) + uint64Size(s.releases()) + uint64Size(s.deadlineMisses())
                + uint64Size(s.worstLatenessNanos()) + uint32Size(s.index()) + uint32Size(s.count());
    }

    private static int writeService(byte[] b, int pos, Frame.ServiceInfo s) {
        pos = writeBytes(b, pos, 1, s.name());
        pos = writeBytes(b, pos, 2, s.state());
        pos = writeUint64(b, pos, 3, s.releases());
        pos = writeUint64(b, pos, 4, s.deadlineMisses());
        pos = writeUint64(b, pos, 5, s.worstLatenessNanos());
        pos = writeUint32(b, pos, 6, s.index());
        return writeUint32(b, pos, 7, s.count());
    }

    private static int deployChunkSize(Frame.DeployChunk d) {
        return bytesSize(d.bundle()) + uint32Size(d.index()) + uint32Size(d.count()) + uint32Size(d.totalBytes())
                + uint32Size(d.bundleCrc32()) + bytesSize(d.data());
    }

    private static int writeDeployChunk(byte[] b, int pos, Frame.DeployChunk d) {
        pos = writeBytes(b, pos, 1, d.bundle());
        pos = writeUint32(b, pos, 2, d.index());
        pos = writeUint32(b, pos, 3, d.count());
        pos = writeUint32(b, pos, 4, d.totalBytes());
        pos = writeUint32(b, pos, 5, d.bundleCrc32());
        return writeBytes(b, pos, 6, d.data());
    }

    // Field numbers here are all < 16: a tag is one byte.

    static int varintSize(long v) {
        return 1 + (63 - Long.numberOfLeadingZeros(v | 1)) / 7;
    }

    private static int uint64Size(long v) {
        return v == 0 ? 0 : 1 + varintSize(v);
    }

    private static int uint32Size(int v) {
        return v == 0 ? 0 : 1 + varintSize(Integer.toUnsignedLong(v));
    }

    private static int int32Size(int v) {
        return v == 0 ? 0 : 1 + varintSize(v); // negative: sign-extended, 10 bytes
    }

    private static int bytesSize(BoundedBytes f) {
        int n = f.length();
        return n == 0 ? 0 : 1 + varintSize(n) + n;
    }

    private static int writeVarint(byte[] b, int pos, long v) {
        while ((v & ~0x7FL) != 0) {
            b[pos++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        b[pos++] = (byte) v;
        return pos;
    }

    private static int writeUint64(byte[] b, int pos, int field, long v) {
        if (v == 0) {
            return pos;
        }
        b[pos++] = (byte) (field << 3);
        return writeVarint(b, pos, v);
    }

    private static int writeUint32(byte[] b, int pos, int field, int v) {
        return writeUint64(b, pos, field, Integer.toUnsignedLong(v));
    }

    private static int writeInt32(byte[] b, int pos, int field, int v) {
        return writeUint64(b, pos, field, v);
    }

    private static int writeBytes(byte[] b, int pos, int field, BoundedBytes f) {
        int n = f.length();
        if (n == 0) {
            return pos;
        }
        b[pos++] = (byte) ((field << 3) | WT_LEN);
        pos = writeVarint(b, pos, n);
        System.arraycopy(f.array(), 0, b, pos, n);
        return pos + n;
    }

    // ================================================================== decoding

    /**
     * Decodes {@code src[off, off+len)} into {@code into} (cleared first). Returns OK or a
     * negative code; after an error {@code into} holds a partial frame that must not be used.
     */
    public static int decode(byte[] src, int off, int len, Frame into) {
        into.clear();
        if (off < 0 || len < 0 || off > src.length - len) {
            return ERR_BAD_LENGTH;
        }
        if (len > Frame.MAX_FRAME_BYTES) {
            return ERR_OVERSIZE;
        }
        int end = off + len;
        int pos = off;
        int seen = 0;
        while (pos < end) {
            pos = readTag(src, pos, end, into);
            if (pos < 0) {
                return pos;
            }
            int tag = (int) into.scratch;
            int field = tag >>> 3;
            int wt = tag & 7;
            switch (field) {
                case 1:
                case 2:
                    int check = checkField(seen, field, wt, WT_VARINT);
                    if (check < 0) {
                        return check;
                    }
                    seen |= 1 << field;
                    pos = readVarint(src, pos, end, into);
                    if (pos < 0) {
                        return pos;
                    }
                    if (field == 1) {
                        into.seq(into.scratch);
                    } else {
                        into.sendTimeNanos(into.scratch);
                    }
                    break;
                case Frame.BODY_INTENT:
                case Frame.BODY_MESSAGE:
                case Frame.BODY_CONTROL:
                case Frame.BODY_DEPLOY_CHUNK: {
                    if (wt != WT_LEN) {
                        return ERR_WRONG_WIRE_TYPE;
                    }
                    if ((seen & BODY_BIT) != 0) {
                        return ERR_DUPLICATE_FIELD;
                    }
                    seen |= BODY_BIT;
                    pos = readLength(src, pos, end, into);
                    if (pos < 0) {
                        return pos;
                    }
                    int subEnd = pos + (int) into.scratch;
                    into.bodyForMerge(field);
                    int r;
                    if (field == Frame.BODY_INTENT) {
                        r = decodeIntent(src, pos, subEnd, into);
                    } else if (field == Frame.BODY_MESSAGE) {
                        r = decodeMessage(src, pos, subEnd, into);
                    } else if (field == Frame.BODY_CONTROL) {
                        r = decodeControl(src, pos, subEnd, into);
                    } else {
                        r = decodeDeployChunk(src, pos, subEnd, into);
                    }
                    if (r < 0) {
                        return r;
                    }
                    pos = subEnd;
                    break;
                }
                default:
                    pos = skipField(src, pos, end, wt, into);
                    if (pos < 0) {
                        return pos;
                    }
                    break;
            }
        }
        return into.bodyKind() == Frame.BODY_NONE ? ERR_NO_BODY : OK;
    }

    /** Wire type and duplicate check of a known field; returns 0 or an error. */
    private static int checkField(int seen, int field, int wt, int expectedWt) {
        if (wt != expectedWt) {
            return ERR_WRONG_WIRE_TYPE;
        }
        if ((seen & (1 << field)) != 0) {
            return ERR_DUPLICATE_FIELD;
        }
        return 0;
    }

    private static int decodeIntent(byte[] b, int pos, int end, Frame f) {
        Frame.Intent i = f.intent();
        int seen = 0;
        while (pos < end) {
            pos = readTag(b, pos, end, f);
            if (pos < 0) {
                return pos;
            }
            int tag = (int) f.scratch;
            int field = tag >>> 3;
            int wt = tag & 7;
            if (field >= 1 && field <= 8) {
                boolean len = field == 1 || field == 2 || field == 4 || field == 6;
                int r = checkField(seen, field, wt, len ? WT_LEN : WT_VARINT);
                if (r < 0) {
                    return r;
                }
                seen |= 1 << field;
            }
            switch (field) {
                case 1: pos = readString(b, pos, end, f, i.action()); break;
                case 2: pos = readString(b, pos, end, f, i.channel()); break;
                case 4: pos = readBytes(b, pos, end, f, i.payload()); break;
                case 6: pos = readString(b, pos, end, f, i.sender()); break;
                case 3:
                    pos = readUint32(b, pos, end, f);
                    if (pos >= 0) {
                        i.senderPriority((int) f.scratch);
                    }
                    break;
                case 5: case 7: case 8:
                    pos = readVarint(b, pos, end, f);
                    if (pos >= 0) {
                        long v = f.scratch;
                        if (field == 5) {
                            i.correlationId(v);
                        } else if (field == 7) {
                            i.rtReceiveNanos(v);
                        } else {
                            i.rtReplyNanos(v);
                        }
                    }
                    break;
                default: pos = skipField(b, pos, end, wt, f); break;
            }
            if (pos < 0) {
                return pos;
            }
        }
        return OK;
    }

    private static int decodeMessage(byte[] b, int pos, int end, Frame f) {
        Frame.Message m = f.message();
        int seen = 0;
        while (pos < end) {
            pos = readTag(b, pos, end, f);
            if (pos < 0) {
                return pos;
            }
            int tag = (int) f.scratch;
            int field = tag >>> 3;
            int wt = tag & 7;
            if (field >= 1 && field <= 6) {
                int r = checkField(seen, field, wt, field == 1 || field == 5 ? WT_LEN : WT_VARINT);
                if (r < 0) {
                    return r;
                }
                seen |= 1 << field;
            }
            switch (field) {
                case 1: pos = readString(b, pos, end, f, m.channel()); break;
                case 5: pos = readBytes(b, pos, end, f, m.payload()); break;
                case 2: case 3: case 4:
                    pos = readInt32(b, pos, end, f);
                    if (pos >= 0) {
                        int v = (int) f.scratch;
                        if (field == 2) {
                            m.what(v);
                        } else if (field == 3) {
                            m.arg1(v);
                        } else {
                            m.arg2(v);
                        }
                    }
                    break;
                case 6:
                    pos = readVarint(b, pos, end, f);
                    if (pos >= 0) {
                        m.correlationId(f.scratch);
                    }
                    break;
                default: pos = skipField(b, pos, end, wt, f); break;
            }
            if (pos < 0) {
                return pos;
            }
        }
        return OK;
    }

    private static int decodeControl(byte[] b, int pos, int end, Frame f) {
        Frame.Control c = f.control();
        int seen = 0;
        while (pos < end) {
            pos = readTag(b, pos, end, f);
            if (pos < 0) {
                return pos;
            }
            int tag = (int) f.scratch;
            int field = tag >>> 3;
            int wt = tag & 7;
            if (field >= 1 && field <= 6) {
                int r = checkField(seen, field, wt, field <= 2 ? WT_VARINT : WT_LEN);
                if (r < 0) {
                    return r;
                }
                seen |= 1 << field;
            }
            switch (field) {
                case 1:
                    pos = readInt32(b, pos, end, f);
                    if (pos >= 0) {
                        c.kind((int) f.scratch);
                    }
                    break;
                case 2:
                    pos = readUint32(b, pos, end, f);
                    if (pos >= 0) {
                        c.code((int) f.scratch);
                    }
                    break;
                case 3: pos = readString(b, pos, end, f, c.subject()); break;
                case 4: pos = readString(b, pos, end, f, c.text()); break;
                case 5: case 6: {
                    pos = readLength(b, pos, end, f);
                    if (pos < 0) {
                        return pos;
                    }
                    int subEnd = pos + (int) f.scratch;
                    int r = field == 5 ? decodeStats(b, pos, subEnd, f, c.statsForMerge())
                            : decodeService(b, pos, subEnd, f, c.serviceForMerge());
                    if (r < 0) {
                        return r;
                    }
                    pos = subEnd;
                    break;
                }
                default: pos = skipField(b, pos, end, wt, f); break;
            }
            if (pos < 0) {
                return pos;
            }
        }
        return OK;
    }

    private static int decodeStats(byte[] b, int pos, int end, Frame f, Frame.Stats s) {
        int seen = 0;
        while (pos < end) {
            pos = readTag(b, pos, end, f);
            if (pos < 0) {
                return pos;
            }
            int tag = (int) f.scratch;
            int field = tag >>> 3;
            int wt = tag & 7;
            if (field >= 1 && field <= 7) {
                int r = checkField(seen, field, wt, WT_VARINT);
                if (r < 0) {
                    return r;
                }
                seen |= 1 << field;
                pos = readVarint(b, pos, end, f);
                if (pos < 0) {
                    return pos;
                }
                long v = f.scratch;
                switch (field) {
                    case 1: s.framesIn(v); break;
                    case 2: s.framesOut(v); break;
                    case 3: s.droppedCorrupt(v); break;
                    case 4: s.droppedUndeliverable(v); break;
                    case 5: s.droppedFull(v); break;
                    case 6: s.resyncs(v); break;
                    default: s.peerRestarts(v); break;
                }
            } else {
                pos = skipField(b, pos, end, wt, f);
                if (pos < 0) {
                    return pos;
                }
            }
        }
        return OK;
    }

    private static int decodeService(byte[] b, int pos, int end, Frame f, Frame.ServiceInfo s) {
        int seen = 0;
        while (pos < end) {
            pos = readTag(b, pos, end, f);
            if (pos < 0) {
                return pos;
            }
            int tag = (int) f.scratch;
            int field = tag >>> 3;
            int wt = tag & 7;
            if (field >= 1 && field <= 7) {
                int r = checkField(seen, field, wt, field <= 2 ? WT_LEN : WT_VARINT);
                if (r < 0) {
                    return r;
                }
                seen |= 1 << field;
            }
            switch (field) {
                case 1: pos = readString(b, pos, end, f, s.name()); break;
                case 2: pos = readString(b, pos, end, f, s.state()); break;
                case 3: case 4: case 5:
                    pos = readVarint(b, pos, end, f);
                    if (pos >= 0) {
                        long v = f.scratch;
                        if (field == 3) {
                            s.releases(v);
                        } else if (field == 4) {
                            s.deadlineMisses(v);
                        } else {
                            s.worstLatenessNanos(v);
                        }
                    }
                    break;
                case 6: case 7:
                    pos = readUint32(b, pos, end, f);
                    if (pos >= 0) {
                        if (field == 6) {
                            s.index((int) f.scratch);
                        } else {
                            s.count((int) f.scratch);
                        }
                    }
                    break;
                default: pos = skipField(b, pos, end, wt, f); break;
            }
            if (pos < 0) {
                return pos;
            }
        }
        return OK;
    }

    private static int decodeDeployChunk(byte[] b, int pos, int end, Frame f) {
        Frame.DeployChunk d = f.deployChunk();
        int seen = 0;
        while (pos < end) {
            pos = readTag(b, pos, end, f);
            if (pos < 0) {
                return pos;
            }
            int tag = (int) f.scratch;
            int field = tag >>> 3;
            int wt = tag & 7;
            if (field >= 1 && field <= 6) {
                int r = checkField(seen, field, wt, field == 1 || field == 6 ? WT_LEN : WT_VARINT);
                if (r < 0) {
                    return r;
                }
                seen |= 1 << field;
            }
            switch (field) {
                case 1: pos = readString(b, pos, end, f, d.bundle()); break;
                case 6: pos = readBytes(b, pos, end, f, d.data()); break;
                case 2: case 3: case 4: case 5:
                    pos = readUint32(b, pos, end, f);
                    if (pos >= 0) {
                        int v = (int) f.scratch;
                        switch (field) {
                            case 2: d.index(v); break;
                            case 3: d.count(v); break;
                            case 4: d.totalBytes(v); break;
                            default: d.bundleCrc32(v); break;
                        }
                    }
                    break;
                default: pos = skipField(b, pos, end, wt, f); break;
            }
            if (pos < 0) {
                return pos;
            }
        }
        return OK;
    }

    /** Reads a varint into {@code f.scratch}; returns the new position or an error. */
    private static int readVarint(byte[] b, int pos, int end, Frame f) {
        long result = 0;
        for (int i = 0; i < 10; i++) {
            if (pos >= end) {
                return ERR_TRUNCATED;
            }
            int x = b[pos++];
            if (i == 9 && (x & 0xFF) > 1) {
                return ERR_BAD_VARINT; // more than 64 bits, or an 11th byte
            }
            result |= (long) (x & 0x7F) << (7 * i);
            if (x >= 0) {
                f.scratch = result;
                return pos;
            }
        }
        return ERR_BAD_VARINT;
    }

    /** A uint32 field: a varint below 2^32. */
    private static int readUint32(byte[] b, int pos, int end, Frame f) {
        pos = readVarint(b, pos, end, f);
        if (pos >= 0 && (f.scratch >>> 32) != 0) {
            return ERR_OVER_BOUND;
        }
        return pos;
    }

    /** An int32 or enum field: a varint whose 64-bit value is in the int32 range (negatives sign-extended). */
    private static int readInt32(byte[] b, int pos, int end, Frame f) {
        pos = readVarint(b, pos, end, f);
        if (pos >= 0 && f.scratch != (int) f.scratch) {
            return ERR_OVER_BOUND;
        }
        return pos;
    }

    /** Reads a tag into {@code f.scratch}: field number ≥ 1, below 2^32, wire type 0, 1, 2 or 5. */
    private static int readTag(byte[] b, int pos, int end, Frame f) {
        int start = pos;
        pos = readVarint(b, pos, end, f);
        if (pos < 0) {
            return pos;
        }
        long tag = f.scratch;
        int wt = (int) (tag & 7);
        // a tag is a varint32: at most 5 bytes, as official protobuf reads it (vector bad_tag_6_bytes)
        if (pos - start > 5 || (tag >>> 32) != 0 || (tag >>> 3) == 0
                || (wt != WT_VARINT && wt != WT_FIXED64 && wt != WT_LEN && wt != WT_FIXED32)) {
            return ERR_BAD_TAG;
        }
        return pos;
    }

    /** Reads a length prefix into {@code f.scratch} and checks it fits before {@code end}. */
    private static int readLength(byte[] b, int pos, int end, Frame f) {
        pos = readVarint(b, pos, end, f);
        if (pos < 0) {
            return pos;
        }
        long n = f.scratch;
        if (n < 0 || n > end - pos) {
            return ERR_TRUNCATED;
        }
        return pos;
    }

    private static int readString(byte[] b, int pos, int end, Frame f, BoundedBytes dst) {
        pos = readLength(b, pos, end, f);
        if (pos < 0) {
            return pos;
        }
        int n = (int) f.scratch;
        if (n > dst.capacity()) {
            return ERR_OVER_BOUND;
        }
        if (!validUtf8(b, pos, n)) {
            return ERR_INVALID_UTF8;
        }
        dst.set(b, pos, n);
        return pos + n;
    }

    private static int readBytes(byte[] b, int pos, int end, Frame f, BoundedBytes dst) {
        pos = readLength(b, pos, end, f);
        if (pos < 0) {
            return pos;
        }
        int n = (int) f.scratch;
        if (n > dst.capacity()) {
            return ERR_OVER_BOUND;
        }
        dst.set(b, pos, n);
        return pos + n;
    }

    private static int skipField(byte[] b, int pos, int end, int wt, Frame f) {
        switch (wt) {
            case WT_VARINT:
                return readVarint(b, pos, end, f);
            case WT_FIXED64:
                return end - pos >= 8 ? pos + 8 : ERR_TRUNCATED;
            case WT_LEN:
                pos = readLength(b, pos, end, f);
                return pos < 0 ? pos : pos + (int) f.scratch;
            default: // WT_FIXED32: readTag let nothing else through
                return end - pos >= 4 ? pos + 4 : ERR_TRUNCATED;
        }
    }

    // ================================================================== UTF-8

    static boolean validUtf8(BoundedBytes f) {
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
