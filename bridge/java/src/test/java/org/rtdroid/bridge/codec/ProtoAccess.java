package org.rtdroid.bridge.codec;

import org.rtdroid.bridge.proto.XccProto;

/** Public door to the package-private protobuf-java helpers for tests in other packages. */
public final class ProtoAccess {
    private ProtoAccess() {
    }

    public static XccProto.Frame toProto(Frame f) {
        return ProtoConvert.toProto(f);
    }

    public static XccProto.Frame parse(byte[] data) throws com.google.protobuf.InvalidProtocolBufferException {
        return ProtoConvert.parse(data, data.length);
    }
}
