package org.rtdroid.android.app;

/**
 * The proxy's Intent interface as apps see it (docs/android-cell.md, "Talking to the RT cell"),
 * said once: {@link ProxyClient} and {@link RtIntent} read every key from here, and the proxy's own
 * {@code ProxyContract} takes its values from here.
 */
public final class ProxyIntents {
    private ProxyIntents() {
    }

    public static final String PROXY_PACKAGE = "org.rtdroid.proxy";
    public static final String PROXY_SERVICE = "org.rtdroid.android.proxy.RTsProxyService";

    /** startService: send the extras below to the RT cell. */
    public static final String ACTION_SEND = "org.rtdroid.proxy.SEND";
    /** Broadcast to the sender's package when a send is refused; extra {@link #EXTRA_REASON}. */
    public static final String ACTION_REFUSED = "org.rtdroid.proxy.REFUSED";

    /** The cross-context channel (a send's and a broadcast's). */
    public static final String EXTRA_CHANNEL = "channel";
    /** A send's intent action (a broadcast carries it as its own action). */
    public static final String EXTRA_ACTION = "action";
    /** The payload bytes: an app contract's encoded message. */
    public static final String EXTRA_PAYLOAD = "payload";
    /** The priority class on the wire (0..99). */
    public static final String EXTRA_PRIORITY = "priority";
    /** A send's own id; a broadcast answering it carries it back (0 on anything else). */
    public static final String EXTRA_CORRELATION_ID = "correlationId";
    /**
     * Who sent it: on a send, the app's package (the proxy checks it against the calling package);
     * on a broadcast from the RT cell, the RT component's sender name.
     */
    public static final String EXTRA_SENDER = "sender";
    /** The app's System.nanoTime() when it sent: the start of the round trip the proxy measures. */
    public static final String EXTRA_SEND_NANOS = "sendNanos";
    /** Why a send was refused ({@link #ACTION_REFUSED}). */
    public static final String EXTRA_REASON = "reason";
    /** RT cell clock: the RT proxy took the request off the ring. */
    public static final String EXTRA_RT_RECEIVE_NANOS = "rtReceiveNanos";
    /** RT cell clock: the RT proxy wrote the reply. */
    public static final String EXTRA_RT_REPLY_NANOS = "rtReplyNanos";
    /** The frame's sequence number on its ring. */
    public static final String EXTRA_SEQ = "seq";
}
