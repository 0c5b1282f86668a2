package org.rtdroid.android.proxy;

import android.content.Context;
import android.os.Handler;
import android.os.HandlerThread;
import android.os.Looper;

import org.rtdroid.bridge.Region;
import org.rtdroid.bridge.codec.Frame;

/**
 * The proxy's inbound path without a region: frames are handed to the real
 * {@link DeliveryQueue} exactly as the RtLink's reader hands them over (decoded, with their
 * ring), on the proxy's own looper thread, and go on into the cell's broadcast queue.
 */
public final class RtInbound implements AutoCloseable {
    private final HandlerThread thread = new HandlerThread("rts-proxy-main");
    private final ChannelTable channels;
    private final DeliveryQueue deliveries;
    private final ProxyStats stats = new ProxyStats();
    private long seq;

    public RtInbound(Context app) {
        thread.start();
        RtLink link = new RtLink("/dev/null/no-region", null, Region.DEFAULT_PEER_TIMEOUT_NANOS); // never started: no region is read
        channels = new ChannelTable(app, new Handler(Looper.getMainLooper()));
        channels.start();
        deliveries = new DeliveryQueue(app, new Handler(thread.getLooper()), link, channels,
                new ProxySender(app, link, channels, stats), stats, new LatencyLog(16));
    }

    /** An intent frame from an RT sender of the given priority, as read from its data ring. */
    public void fromRt(String channel, String action, int senderPriority) {
        Frame f = new Frame();
        f.seq(seq++).sendTimeNanos(System.nanoTime());
        f.selectIntent().action(action).channel(channel).senderPriority(senderPriority).payload(new byte[0])
                .correlationId(0).sender("rt-test").rtReceiveNanos(0).rtReplyNanos(0);
        deliveries.enqueueFromRt(f, 1, System.nanoTime());
    }

    public long delivered() {
        return stats.delivered;
    }

    public long droppedQueueFull() {
        return stats.droppedQueueFull;
    }

    @Override
    public void close() {
        channels.stop();
        thread.quit();
    }
}
