package org.rtdroid.bridge.codec;

/**
 * A mutable, reusable flyweight for one {@code rtdroid.xcc.v1.Frame} (bridge/proto/xcc.proto).
 * Every bounded field has a pre-sized array (bounds of xcc.options; a nanopb string's
 * {@code max_size} counts its terminator, so a string carries max_size − 1 bytes). Create one per
 * thread at start-up and reuse it: nothing here allocates except the String conveniences.
 *
 * <p>The {@code body} oneof: {@link #bodyKind()} says which of {@link #intent()},
 * {@link #message()}, {@link #control()}, {@link #deployChunk()} is meaningful;
 * {@code selectIntent()} and friends choose (and clear) a body for writing.
 */
public final class Frame {
    public static final int BODY_NONE = 0;
    public static final int BODY_INTENT = 10;
    public static final int BODY_MESSAGE = 11;
    public static final int BODY_CONTROL = 12;
    public static final int BODY_DEPLOY_CHUNK = 13;

    /** The frame cap: a 512-byte slot minus its 16-byte header; longer input is OVERSIZE. */
    public static final int MAX_FRAME_BYTES = 496;

    // Bounds: xcc.options (strings without nanopb's terminator).
    public static final int MAX_ACTION_BYTES = 63;
    public static final int MAX_CHANNEL_BYTES = 63;
    public static final int MAX_INTENT_PAYLOAD_BYTES = 224;
    public static final int MAX_SENDER_BYTES = 47;
    public static final int MAX_MESSAGE_PAYLOAD_BYTES = 256;
    public static final int MAX_SUBJECT_BYTES = 63;
    public static final int MAX_TEXT_BYTES = 255;
    public static final int MAX_SERVICE_NAME_BYTES = 63;
    public static final int MAX_SERVICE_STATE_BYTES = 15;
    public static final int MAX_BUNDLE_NAME_BYTES = 63;
    public static final int MAX_CHUNK_DATA_BYTES = 384;

    private long seq;
    private long sendTimeNanos;
    private int bodyKind;
    private final Intent intent = new Intent();
    private final Message message = new Message();
    private final Control control = new Control();
    private final DeployChunk deployChunk = new DeployChunk();

    /** Decoder scratch: the last varint read (keeps FrameCodec static and allocation-free). */
    long scratch;

    public Frame clear() {
        seq = 0;
        sendTimeNanos = 0;
        bodyKind = BODY_NONE;
        return this;
    }

    public long seq() {
        return seq;
    }

    public Frame seq(long value) {
        seq = value;
        return this;
    }

    public long sendTimeNanos() {
        return sendTimeNanos;
    }

    public Frame sendTimeNanos(long value) {
        sendTimeNanos = value;
        return this;
    }

    /** BODY_NONE, BODY_INTENT, BODY_MESSAGE, BODY_CONTROL or BODY_DEPLOY_CHUNK (the field numbers). */
    public int bodyKind() {
        return bodyKind;
    }

    /** The intent body (meaningful when {@code bodyKind() == BODY_INTENT}). */
    public Intent intent() {
        return intent;
    }

    public Message message() {
        return message;
    }

    public Control control() {
        return control;
    }

    public DeployChunk deployChunk() {
        return deployChunk;
    }

    /** Makes the intent the body, cleared, and returns it. */
    public Intent selectIntent() {
        bodyKind = BODY_INTENT;
        return intent.clear();
    }

    public Message selectMessage() {
        bodyKind = BODY_MESSAGE;
        return message.clear();
    }

    public Control selectControl() {
        bodyKind = BODY_CONTROL;
        return control.clear();
    }

    public DeployChunk selectDeployChunk() {
        bodyKind = BODY_DEPLOY_CHUNK;
        return deployChunk.clear();
    }

    /** Removes the body (a frame without one is invalid on the wire; tests only). */
    public Frame clearBody() {
        bodyKind = BODY_NONE;
        return this;
    }

    /** Decoder: switch the oneof to {@code kind}; a different previous member is discarded. */
    void bodyForMerge(int kind) {
        if (bodyKind != kind) {
            bodyKind = kind;
            switch (kind) {
                case BODY_INTENT: intent.clear(); break;
                case BODY_MESSAGE: message.clear(); break;
                case BODY_CONTROL: control.clear(); break;
                default: deployChunk.clear(); break;
            }
        }
    }

    /** Copies every field of {@code other}. Allocation-free. */
    public Frame copyFrom(Frame other) {
        seq = other.seq;
        sendTimeNanos = other.sendTimeNanos;
        bodyKind = other.bodyKind;
        intent.copyFrom(other.intent);
        message.copyFrom(other.message);
        control.copyFrom(other.control);
        deployChunk.copyFrom(other.deployChunk);
        return this;
    }

    public static String bodyName(int kind) {
        switch (kind) {
            case BODY_NONE: return "none";
            case BODY_INTENT: return "intent";
            case BODY_MESSAGE: return "message";
            case BODY_CONTROL: return "control";
            case BODY_DEPLOY_CHUNK: return "deploy_chunk";
            default: return "unknown";
        }
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Frame{seq=").append(Long.toUnsignedString(seq))
                .append(", send_time_nanos=").append(Long.toUnsignedString(sendTimeNanos)).append(", ");
        switch (bodyKind) {
            case BODY_INTENT: sb.append(intent); break;
            case BODY_MESSAGE: sb.append(message); break;
            case BODY_CONTROL: sb.append(control); break;
            case BODY_DEPLOY_CHUNK: sb.append(deployChunk); break;
            default: sb.append("no body"); break;
        }
        return sb.append('}').toString();
    }

    /** An Android-style intent addressed to a cross-context channel. */
    public static final class Intent {
        private final BoundedBytes action = new BoundedBytes(MAX_ACTION_BYTES, true);
        private final BoundedBytes channel = new BoundedBytes(MAX_CHANNEL_BYTES, true);
        private int senderPriority;
        private final BoundedBytes payload = new BoundedBytes(MAX_INTENT_PAYLOAD_BYTES, false);
        private long correlationId;
        private final BoundedBytes sender = new BoundedBytes(MAX_SENDER_BYTES, true);
        private long rtReceiveNanos;
        private long rtReplyNanos;

        public Intent clear() {
            action.clear();
            channel.clear();
            senderPriority = 0;
            payload.clear();
            correlationId = 0;
            sender.clear();
            rtReceiveNanos = 0;
            rtReplyNanos = 0;
            return this;
        }

        public BoundedBytes action() {
            return action;
        }

        public BoundedBytes channel() {
            return channel;
        }

        /** uint32 on the wire; 0..99 by the spec (checked by the proxy, not the codec). */
        public int senderPriority() {
            return senderPriority;
        }

        public Intent senderPriority(int value) {
            senderPriority = value;
            return this;
        }

        public BoundedBytes payload() {
            return payload;
        }

        public long correlationId() {
            return correlationId;
        }

        public Intent correlationId(long value) {
            correlationId = value;
            return this;
        }

        public BoundedBytes sender() {
            return sender;
        }

        public long rtReceiveNanos() {
            return rtReceiveNanos;
        }

        public Intent rtReceiveNanos(long value) {
            rtReceiveNanos = value;
            return this;
        }

        public long rtReplyNanos() {
            return rtReplyNanos;
        }

        public Intent rtReplyNanos(long value) {
            rtReplyNanos = value;
            return this;
        }

        /** Non-real-time convenience. */
        public Intent action(String value) {
            action.setString(value);
            return this;
        }

        public Intent channel(String value) {
            channel.setString(value);
            return this;
        }

        public Intent sender(String value) {
            sender.setString(value);
            return this;
        }

        public Intent payload(byte[] value) {
            payload.set(value, 0, value.length);
            return this;
        }

        public String actionString() {
            return action.asString();
        }

        public String channelString() {
            return channel.asString();
        }

        public String senderString() {
            return sender.asString();
        }

        void copyFrom(Intent o) {
            action.set(o.action);
            channel.set(o.channel);
            senderPriority = o.senderPriority;
            payload.set(o.payload);
            correlationId = o.correlationId;
            sender.set(o.sender);
            rtReceiveNanos = o.rtReceiveNanos;
            rtReplyNanos = o.rtReplyNanos;
        }

        @Override
        public String toString() {
            return "Intent{action=" + action + ", channel=" + channel + ", sender_priority="
                    + Integer.toUnsignedString(senderPriority) + ", payload=" + payload + ", correlation_id="
                    + Long.toUnsignedString(correlationId) + ", sender=" + sender + ", rt_receive_nanos="
                    + Long.toUnsignedString(rtReceiveNanos) + ", rt_reply_nanos="
                    + Long.toUnsignedString(rtReplyNanos) + "}";
        }
    }

    /** A Handler-style message addressed to a cross-context channel. */
    public static final class Message {
        private final BoundedBytes channel = new BoundedBytes(MAX_CHANNEL_BYTES, true);
        private int what;
        private int arg1;
        private int arg2;
        private final BoundedBytes payload = new BoundedBytes(MAX_MESSAGE_PAYLOAD_BYTES, false);
        private long correlationId;

        public Message clear() {
            channel.clear();
            what = 0;
            arg1 = 0;
            arg2 = 0;
            payload.clear();
            correlationId = 0;
            return this;
        }

        public BoundedBytes channel() {
            return channel;
        }

        public int what() {
            return what;
        }

        public Message what(int value) {
            what = value;
            return this;
        }

        public int arg1() {
            return arg1;
        }

        public Message arg1(int value) {
            arg1 = value;
            return this;
        }

        public int arg2() {
            return arg2;
        }

        public Message arg2(int value) {
            arg2 = value;
            return this;
        }

        public BoundedBytes payload() {
            return payload;
        }

        public long correlationId() {
            return correlationId;
        }

        public Message correlationId(long value) {
            correlationId = value;
            return this;
        }

        public Message channel(String value) {
            channel.setString(value);
            return this;
        }

        public String channelString() {
            return channel.asString();
        }

        public Message payload(byte[] value) {
            payload.set(value, 0, value.length);
            return this;
        }

        void copyFrom(Message o) {
            channel.set(o.channel);
            what = o.what;
            arg1 = o.arg1;
            arg2 = o.arg2;
            payload.set(o.payload);
            correlationId = o.correlationId;
        }

        @Override
        public String toString() {
            return "Message{channel=" + channel + ", what=" + what + ", arg1=" + arg1 + ", arg2=" + arg2
                    + ", payload=" + payload + ", correlation_id=" + Long.toUnsignedString(correlationId) + "}";
        }
    }

    /** Management and health: hello, heartbeat, stats, errors, deploy results, service lists. */
    public static final class Control {
        public static final int KIND_UNSPECIFIED = 0;
        public static final int HELLO = 1;
        public static final int HEARTBEAT = 2;
        public static final int STATS_REQUEST = 3;
        public static final int STATS = 4;
        public static final int ERROR = 5;
        public static final int DEPLOY_RESULT = 6;
        public static final int UNDEPLOY = 7;
        public static final int LIST_SERVICES = 8;
        public static final int SERVICE_INFO = 9;
        public static final int ACK = 10;

        private int kind;
        private int code;
        private final BoundedBytes subject = new BoundedBytes(MAX_SUBJECT_BYTES, true);
        private final BoundedBytes text = new BoundedBytes(MAX_TEXT_BYTES, true);
        private boolean hasStats;
        private final Stats stats = new Stats();
        private boolean hasService;
        private final ServiceInfo service = new ServiceInfo();

        public Control clear() {
            kind = 0;
            code = 0;
            subject.clear();
            text.clear();
            hasStats = false;
            stats.clear();
            hasService = false;
            service.clear();
            return this;
        }

        /** Control.Kind (an open proto3 enum: unknown numbers are kept). */
        public int kind() {
            return kind;
        }

        public Control kind(int value) {
            kind = value;
            return this;
        }

        /** uint32: 0 = ok, otherwise a result code (protocols.md). */
        public int code() {
            return code;
        }

        public Control code(int value) {
            code = value;
            return this;
        }

        public BoundedBytes subject() {
            return subject;
        }

        public BoundedBytes text() {
            return text;
        }

        public boolean hasStats() {
            return hasStats;
        }

        /** The stats sub-message (meaningful when {@link #hasStats()}). */
        public Stats stats() {
            return stats;
        }

        /** Marks stats present, cleared, and returns them. */
        public Stats selectStats() {
            hasStats = true;
            return stats.clear();
        }

        public Control clearStats() {
            hasStats = false;
            return this;
        }

        public boolean hasService() {
            return hasService;
        }

        public ServiceInfo service() {
            return service;
        }

        public ServiceInfo selectService() {
            hasService = true;
            return service.clear();
        }

        public Control clearService() {
            hasService = false;
            return this;
        }

        Stats statsForMerge() {
            if (!hasStats) {
                hasStats = true;
                stats.clear();
            }
            return stats;
        }

        ServiceInfo serviceForMerge() {
            if (!hasService) {
                hasService = true;
                service.clear();
            }
            return service;
        }

        public Control subject(String value) {
            subject.setString(value);
            return this;
        }

        public Control text(String value) {
            text.setString(value);
            return this;
        }

        public String subjectString() {
            return subject.asString();
        }

        public String textString() {
            return text.asString();
        }

        void copyFrom(Control o) {
            kind = o.kind;
            code = o.code;
            subject.set(o.subject);
            text.set(o.text);
            hasStats = o.hasStats;
            stats.copyFrom(o.stats);
            hasService = o.hasService;
            service.copyFrom(o.service);
        }

        @Override
        public String toString() {
            return "Control{kind=" + kind + ", code=" + Integer.toUnsignedString(code) + ", subject=" + subject
                    + ", text=" + text + (hasStats ? ", stats=" + stats : "")
                    + (hasService ? ", service=" + service : "") + "}";
        }
    }

    public static final class Stats {
        private long framesIn;
        private long framesOut;
        private long droppedCorrupt;
        private long droppedUndeliverable;
        private long droppedFull;
        private long resyncs;
        private long peerRestarts;

        public Stats clear() {
            framesIn = 0;
            framesOut = 0;
            droppedCorrupt = 0;
            droppedUndeliverable = 0;
            droppedFull = 0;
            resyncs = 0;
            peerRestarts = 0;
            return this;
        }

        public long framesIn() {
            return framesIn;
        }

        public Stats framesIn(long v) {
            framesIn = v;
            return this;
        }

        public long framesOut() {
            return framesOut;
        }

        public Stats framesOut(long v) {
            framesOut = v;
            return this;
        }

        public long droppedCorrupt() {
            return droppedCorrupt;
        }

        public Stats droppedCorrupt(long v) {
            droppedCorrupt = v;
            return this;
        }

        public long droppedUndeliverable() {
            return droppedUndeliverable;
        }

        public Stats droppedUndeliverable(long v) {
            droppedUndeliverable = v;
            return this;
        }

        public long droppedFull() {
            return droppedFull;
        }

        public Stats droppedFull(long v) {
            droppedFull = v;
            return this;
        }

        public long resyncs() {
            return resyncs;
        }

        public Stats resyncs(long v) {
            resyncs = v;
            return this;
        }

        public long peerRestarts() {
            return peerRestarts;
        }

        public Stats peerRestarts(long v) {
            peerRestarts = v;
            return this;
        }

        void copyFrom(Stats o) {
            framesIn = o.framesIn;
            framesOut = o.framesOut;
            droppedCorrupt = o.droppedCorrupt;
            droppedUndeliverable = o.droppedUndeliverable;
            droppedFull = o.droppedFull;
            resyncs = o.resyncs;
            peerRestarts = o.peerRestarts;
        }

        @Override
        public String toString() {
            return "Stats{frames_in=" + Long.toUnsignedString(framesIn) + ", frames_out="
                    + Long.toUnsignedString(framesOut) + ", dropped_corrupt=" + Long.toUnsignedString(droppedCorrupt)
                    + ", dropped_undeliverable=" + Long.toUnsignedString(droppedUndeliverable) + ", dropped_full="
                    + Long.toUnsignedString(droppedFull) + ", resyncs=" + Long.toUnsignedString(resyncs)
                    + ", peer_restarts=" + Long.toUnsignedString(peerRestarts) + "}";
        }
    }

    public static final class ServiceInfo {
        private final BoundedBytes name = new BoundedBytes(MAX_SERVICE_NAME_BYTES, true);
        private final BoundedBytes state = new BoundedBytes(MAX_SERVICE_STATE_BYTES, true);
        private long releases;
        private long deadlineMisses;
        private long worstLatenessNanos;
        private int index;
        private int count;

        public ServiceInfo clear() {
            name.clear();
            state.clear();
            releases = 0;
            deadlineMisses = 0;
            worstLatenessNanos = 0;
            index = 0;
            count = 0;
            return this;
        }

        public BoundedBytes name() {
            return name;
        }

        public BoundedBytes state() {
            return state;
        }

        public long releases() {
            return releases;
        }

        public ServiceInfo releases(long v) {
            releases = v;
            return this;
        }

        public long deadlineMisses() {
            return deadlineMisses;
        }

        public ServiceInfo deadlineMisses(long v) {
            deadlineMisses = v;
            return this;
        }

        public long worstLatenessNanos() {
            return worstLatenessNanos;
        }

        public ServiceInfo worstLatenessNanos(long v) {
            worstLatenessNanos = v;
            return this;
        }

        public int index() {
            return index;
        }

        public ServiceInfo index(int v) {
            index = v;
            return this;
        }

        public int count() {
            return count;
        }

        public ServiceInfo count(int v) {
            count = v;
            return this;
        }

        public ServiceInfo name(String value) {
            name.setString(value);
            return this;
        }

        public ServiceInfo state(String value) {
            state.setString(value);
            return this;
        }

        public String nameString() {
            return name.asString();
        }

        public String stateString() {
            return state.asString();
        }

        void copyFrom(ServiceInfo o) {
            name.set(o.name);
            state.set(o.state);
            releases = o.releases;
            deadlineMisses = o.deadlineMisses;
            worstLatenessNanos = o.worstLatenessNanos;
            index = o.index;
            count = o.count;
        }

        @Override
        public String toString() {
            return "ServiceInfo{name=" + name + ", state=" + state + ", releases=" + Long.toUnsignedString(releases)
                    + ", deadline_misses=" + Long.toUnsignedString(deadlineMisses) + ", worst_lateness_nanos="
                    + Long.toUnsignedString(worstLatenessNanos) + ", index=" + Integer.toUnsignedString(index)
                    + ", count=" + Integer.toUnsignedString(count) + "}";
        }
    }

    /** One piece of a signed RT bundle on the management ring. */
    public static final class DeployChunk {
        private final BoundedBytes bundle = new BoundedBytes(MAX_BUNDLE_NAME_BYTES, true);
        private int index;
        private int count;
        private int totalBytes;
        private int bundleCrc32;
        private final BoundedBytes data = new BoundedBytes(MAX_CHUNK_DATA_BYTES, false);

        public DeployChunk clear() {
            bundle.clear();
            index = 0;
            count = 0;
            totalBytes = 0;
            bundleCrc32 = 0;
            data.clear();
            return this;
        }

        public BoundedBytes bundle() {
            return bundle;
        }

        public int index() {
            return index;
        }

        public DeployChunk index(int v) {
            index = v;
            return this;
        }

        public int count() {
            return count;
        }

        public DeployChunk count(int v) {
            count = v;
            return this;
        }

        /** uint32; the receiver holds it to 16 MiB. */
        public int totalBytes() {
            return totalBytes;
        }

        public DeployChunk totalBytes(int v) {
            totalBytes = v;
            return this;
        }

        public int bundleCrc32() {
            return bundleCrc32;
        }

        public DeployChunk bundleCrc32(int v) {
            bundleCrc32 = v;
            return this;
        }

        public BoundedBytes data() {
            return data;
        }

        public DeployChunk bundle(String value) {
            bundle.setString(value);
            return this;
        }

        public String bundleString() {
            return bundle.asString();
        }

        public DeployChunk data(byte[] value) {
            data.set(value, 0, value.length);
            return this;
        }

        void copyFrom(DeployChunk o) {
            bundle.set(o.bundle);
            index = o.index;
            count = o.count;
            totalBytes = o.totalBytes;
            bundleCrc32 = o.bundleCrc32;
            data.set(o.data);
        }

        @Override
        public String toString() {
            return "DeployChunk{bundle=" + bundle + ", index=" + Integer.toUnsignedString(index) + ", count="
                    + Integer.toUnsignedString(count) + ", total_bytes=" + Integer.toUnsignedString(totalBytes)
                    + ", bundle_crc32=" + Integer.toUnsignedString(bundleCrc32) + ", data=" + data + "}";
        }
    }
}
