package org.rtdroid.bridge.codec;

import java.util.Random;

import com.google.protobuf.ByteString;
import org.rtdroid.bridge.proto.XccProto;
import org.rtdroid.xcc.XccBounds;

/** Test bridge between the flyweight and protobuf-java's generated classes, plus random frames. */
final class ProtoConvert {
    private ProtoConvert() {
    }

    static ByteString bytes(BoundedBytes b) {
        return ByteString.copyFrom(b.array(), 0, b.length());
    }

    static XccProto.Frame toProto(Frame f) {
        XccProto.Frame.Builder b = XccProto.Frame.newBuilder().setSeq(f.seq()).setSendTimeNanos(f.sendTimeNanos());
        switch (f.bodyKind()) {
            case Frame.BODY_INTENT: {
                Frame.Intent i = f.intent();
                b.setIntent(XccProto.Intent.newBuilder().setActionBytes(bytes(i.action()))
                        .setChannelBytes(bytes(i.channel())).setSenderPriority(i.senderPriority())
                        .setPayload(bytes(i.payload())).setCorrelationId(i.correlationId())
                        .setSenderBytes(bytes(i.sender())).setRtReceiveNanos(i.rtReceiveNanos())
                        .setRtReplyNanos(i.rtReplyNanos()));
                break;
            }
            case Frame.BODY_MESSAGE: {
                Frame.Message m = f.message();
                b.setMessage(XccProto.Message.newBuilder().setChannelBytes(bytes(m.channel())).setWhat(m.what())
                        .setArg1(m.arg1()).setArg2(m.arg2()).setPayload(bytes(m.payload()))
                        .setCorrelationId(m.correlationId()));
                break;
            }
            case Frame.BODY_CONTROL: {
                Frame.Control c = f.control();
                XccProto.Control.Builder cb = XccProto.Control.newBuilder().setKindValue(c.kind()).setCode(c.code())
                        .setSubjectBytes(bytes(c.subject())).setTextBytes(bytes(c.text()));
                if (c.hasStats()) {
                    Frame.Stats s = c.stats();
                    cb.setStats(XccProto.Stats.newBuilder().setFramesIn(s.framesIn()).setFramesOut(s.framesOut())
                            .setDroppedCorrupt(s.droppedCorrupt()).setDroppedUndeliverable(s.droppedUndeliverable())
                            .setDroppedFull(s.droppedFull()).setResyncs(s.resyncs())
                            .setPeerRestarts(s.peerRestarts()));
                }
                if (c.hasService()) {
                    Frame.ServiceInfo s = c.service();
                    cb.setService(XccProto.ServiceInfo.newBuilder().setNameBytes(bytes(s.name()))
                            .setStateBytes(bytes(s.state())).setReleases(s.releases())
                            .setDeadlineMisses(s.deadlineMisses()).setWorstLatenessNanos(s.worstLatenessNanos())
                            .setIndex(s.index()).setCount(s.count()).setWorstResponseNanos(s.worstResponseNanos())
                            .setAnalysedWcrtNanos(s.analysedWcrtNanos()).setCpuPlusOne(s.cpuPlusOne())
                            .setWorstExecutionNanos(s.worstExecutionNanos()).setAnalysedCostNanos(s.analysedCostNanos())
                            .setCostOverruns(s.costOverruns()).setLastCostOverrun(s.lastCostOverrun()));
                }
                b.setControl(cb);
                break;
            }
            case Frame.BODY_DEPLOY_CHUNK: {
                Frame.DeployChunk d = f.deployChunk();
                b.setDeployChunk(XccProto.DeployChunk.newBuilder().setBundleBytes(bytes(d.bundle()))
                        .setIndex(d.index()).setCount(d.count()).setTotalBytes(d.totalBytes())
                        .setBundleCrc32(d.bundleCrc32()).setData(bytes(d.data())).setContentValue(d.content()));
                break;
            }
            default:
                break;
        }
        return b.build();
    }

    /** protobuf-java's parse with unknown fields dropped (the flyweight keeps none). */
    static XccProto.Frame parse(byte[] data, int len) throws com.google.protobuf.InvalidProtocolBufferException {
        XccProto.Frame f = XccProto.Frame.parseFrom(com.google.protobuf.ByteString.copyFrom(data, 0, len));
        com.google.protobuf.UnknownFieldSet none = com.google.protobuf.UnknownFieldSet.getDefaultInstance();
        XccProto.Frame.Builder b = f.toBuilder().setUnknownFields(none);
        if (f.hasIntent()) {
            b.setIntent(f.getIntent().toBuilder().setUnknownFields(none));
        } else if (f.hasMessage()) {
            b.setMessage(f.getMessage().toBuilder().setUnknownFields(none));
        } else if (f.hasDeployChunk()) {
            b.setDeployChunk(f.getDeployChunk().toBuilder().setUnknownFields(none));
        } else if (f.hasControl()) {
            XccProto.Control.Builder c = f.getControl().toBuilder().setUnknownFields(none);
            if (c.hasStats()) {
                c.setStats(c.getStats().toBuilder().setUnknownFields(none));
            }
            if (c.hasService()) {
                c.setService(c.getService().toBuilder().setUnknownFields(none));
            }
            b.setControl(c);
        }
        return b.build();
    }

    // ------------------------------------------------------------------ random frames

    private static final String[] PIECES = {"a", "Z", "0", ".", "_", "é", "ß", "€", "中", "😀", "\u007f"};

    static void randomString(Random r, BoundedBytes dst) {
        if (r.nextInt(4) == 0) {
            dst.clear();
            return;
        }
        int target = r.nextInt(4) == 0 ? dst.capacity() : r.nextInt(dst.capacity() + 1);
        StringBuilder sb = new StringBuilder();
        int bytes = 0;
        while (true) {
            String p = PIECES[r.nextInt(PIECES.length)];
            int n = p.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
            if (bytes + n > target) {
                break;
            }
            sb.append(p);
            bytes += n;
        }
        dst.setString(sb.toString());
    }

    static void randomBytes(Random r, BoundedBytes dst, int max) {
        int n = r.nextInt(4) == 0 ? 0 : r.nextInt(4) == 0 ? max : r.nextInt(max + 1);
        r.nextBytes(dst.array());
        dst.length(n);
    }

    static long randomLong(Random r) {
        switch (r.nextInt(6)) {
            case 0: return 0;
            case 1: return r.nextInt(128);
            case 2: return r.nextInt(1 << 20);
            case 3: return -1L - r.nextInt(3);
            default: return r.nextLong();
        }
    }

    static int randomInt(Random r) {
        switch (r.nextInt(5)) {
            case 0: return 0;
            case 1: return r.nextInt(128);
            case 2: return -r.nextInt(1000) - 1;
            default: return r.nextInt();
        }
    }

    /** A random frame within every bound whose encoding fits the 496-byte cap. */
    static void randomFrame(Random r, Frame f) {
        do {
            fill(r, f, r.nextInt(4));
        } while (FrameCodec.encodedSize(f) > Frame.MAX_FRAME_BYTES);
    }

    private static void fill(Random r, Frame f, int kind) {
        f.clear().seq(randomLong(r)).sendTimeNanos(randomLong(r));
        switch (kind) {
            case 0: {
                Frame.Intent i = f.selectIntent();
                randomString(r, i.action());
                randomString(r, i.channel());
                i.senderPriority(r.nextBoolean() ? r.nextInt(100) : randomInt(r));
                randomBytes(r, i.payload(), XccBounds.MAX_INTENT_PAYLOAD_BYTES);
                i.correlationId(randomLong(r));
                randomString(r, i.sender());
                i.rtReceiveNanos(randomLong(r)).rtReplyNanos(randomLong(r));
                break;
            }
            case 1: {
                Frame.Message m = f.selectMessage();
                randomString(r, m.channel());
                m.what(randomInt(r)).arg1(randomInt(r)).arg2(randomInt(r));
                randomBytes(r, m.payload(), XccBounds.MAX_MESSAGE_PAYLOAD_BYTES);
                m.correlationId(randomLong(r));
                break;
            }
            case 2: {
                Frame.Control c = f.selectControl();
                c.kind(r.nextInt(5) == 0 ? randomInt(r) : r.nextInt(11)).code(randomInt(r));
                randomString(r, c.subject());
                randomString(r, c.text());
                if (r.nextBoolean()) {
                    c.selectStats().framesIn(randomLong(r)).framesOut(randomLong(r)).droppedCorrupt(randomLong(r))
                            .droppedUndeliverable(randomLong(r)).droppedFull(randomLong(r))
                            .resyncs(randomLong(r)).peerRestarts(randomLong(r));
                }
                if (r.nextBoolean()) {
                    Frame.ServiceInfo s = c.selectService();
                    randomString(r, s.name());
                    randomString(r, s.state());
                    s.releases(randomLong(r)).deadlineMisses(randomLong(r)).worstLatenessNanos(randomLong(r))
                            .index(randomInt(r)).count(randomInt(r)).worstResponseNanos(randomLong(r))
                            .analysedWcrtNanos(randomLong(r)).cpuPlusOne(randomInt(r)).worstExecutionNanos(randomLong(r))
                            .analysedCostNanos(randomLong(r)).costOverruns(randomLong(r))
                            .lastCostOverrun(randomLong(r));
                }
                break;
            }
            default: {
                Frame.DeployChunk d = f.selectDeployChunk();
                randomString(r, d.bundle());
                d.index(randomInt(r)).count(randomInt(r)).totalBytes(randomInt(r)).bundleCrc32(randomInt(r))
                        .content(randomInt(r));
                randomBytes(r, d.data(), XccBounds.MAX_DEPLOY_CHUNK_DATA_BYTES);
                break;
            }
        }
    }
}
