package org.rtdroid.examples.echo;

import org.rtdroid.contract.echo.Echo;
import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.component.RealtimeReceiver;
import org.rtdroid.runtime.xcc.CrossContextClosure;
import org.rtdroid.runtime.xcc.CrossContextIntent;
import org.rtdroid.runtime.xcc.CrossContextPublisher;

/**
 * Replies to every {@code org.rtdroid.echo.PING} on cross-context channel {@code echo} with an
 * {@code org.rtdroid.echo.PONG} with the same payload, at once, as a reply (the runtime carries the
 * correlation id, receive time and priority class back). The payload is the app's contract
 * ({@code bridge/contracts/echo.proto}), reflected undecoded: any bytes up to the channel's size
 * come back as they were. Allocation-free: the receiver itself is the closure that fills the
 * pre-allocated outbound intent.
 */
public final class EchoReceiver extends RealtimeReceiver implements CrossContextClosure {
    public static final String CHANNEL = Echo.Ping.CHANNEL;
    public static final String PING = Echo.Ping.ACTION_PING;
    public static final String PONG = Echo.Ping.ACTION_PONG;
    private static final String SENDER = "rtdroid.echo";

    private CrossContextPublisher replies;
    private RealtimeIntent request;
    private volatile long pongs;
    private volatile long ignored;
    private volatile long refused;

    @Override
    public void onCreate() {
        replies = crossContextPublisher(CHANNEL);
    }

    @Override
    public void onReceive(RealtimeIntent intent) {
        if (!intent.hasAction(PING)) {
            ignored++;
            return;
        }
        request = intent;
        if (replies.reply(intent, this) == CrossContextPublisher.PUBLISHED) {
            pongs++;
        } else {
            refused++;
        }
    }

    @Override
    public void onClean() {
        request = null;
    }

    @Override
    public void genMsg(CrossContextIntent out) {
        RealtimeIntent in = request;
        out.setAction(PONG);
        out.setSender(SENDER);
        out.setPayload(in.payload(), 0, in.payloadLength());
    }

    /** PONGs published. */
    public long pongs() { return pongs; }

    /** Intents that were not PINGs. */
    public long ignored() { return ignored; }

    /** Replies the outbound ring refused (full). */
    public long refused() { return refused; }
}
