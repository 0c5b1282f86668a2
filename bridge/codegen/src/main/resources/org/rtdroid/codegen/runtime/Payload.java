package org.rtdroid.codegen.runtime;

/**
 * One cross-context payload of an app contract (bridge/contracts): a generated message that knows
 * the channel carrying it and its priority class, and encodes and decodes itself over byte arrays
 * without allocating. The RT side fills or reads one in place in the runtime's pre-allocated
 * intent; the Android side's send helper encodes it into the proxy's Intent.
 */
public interface Payload {
    /** The cross-context channel that carries it, as the manifests declare it. */
    String channel();

    /** The sender's priority class on the wire (0..99) the contract gives it. */
    int priority();

    /** Encodes this at {@code dst[off]}: the encoded length, or a negative ProtoWire code. */
    int encode(byte[] dst, int off);

    /** Decodes {@code src[off, off+len)} into this (cleared first): ProtoWire.OK or a negative code. */
    int decode(byte[] src, int off, int len);
}
