package org.rtdroid.bridge.rtproxy.testapp;

import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.component.RealtimeReceiver;
import org.rtdroid.runtime.xcc.CrossContextClosure;
import org.rtdroid.runtime.xcc.CrossContextIntent;
import org.rtdroid.runtime.xcc.CrossContextPublisher;

/** Test receiver: replies to every intent on {@code echo} with PONG, same payload (the runtime carries the correlation id). */
public final class TestEchoReceiver extends RealtimeReceiver implements CrossContextClosure {
    private CrossContextPublisher replies;
    private RealtimeIntent request;

    @Override
    public void onCreate() {
        replies = crossContextPublisher("echo");
    }

    @Override
    public void onReceive(RealtimeIntent intent) {
        request = intent;
        replies.reply(intent, this);
    }

    @Override
    public void onClean() {
        request = null;
    }

    @Override
    public void genMsg(CrossContextIntent out) {
        RealtimeIntent in = request;
        out.setAction("org.rtdroid.echo.PONG");
        out.setSender("rt.test.echo");
        out.setPayload(in.payload(), 0, in.payloadLength());
    }
}
