package org.rtdroid.runtime.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.component.RealtimeReceiver;
import org.rtdroid.runtime.xcc.CrossContextClosure;
import org.rtdroid.runtime.xcc.CrossContextEndpoint;
import org.rtdroid.runtime.xcc.CrossContextIntent;
import org.rtdroid.runtime.xcc.CrossContextPublisher;

class CrossContextEndpointTest {
    private final RuntimeHost host = Apps.host();

    @AfterEach
    void tearDown() {
        host.shutdown();
    }

    /** Replies to "q" with "a" (payload reversed); can be held to fill its queue. */
    public static final class Answerer extends RealtimeReceiver implements CrossContextClosure {
        static volatile CountDownLatch hold = new CountDownLatch(0);
        static volatile int lowestPrioritySeen = -1;
        static volatile int androidPrioritySeen = -1;
        static volatile String androidSenderSeen;
        private CrossContextPublisher out;
        private RealtimeIntent current;

        @Override
        public void onCreate() {
            out = crossContextPublisher("reply");
        }

        @Override
        public void onReceive(RealtimeIntent intent) {
            try {
                hold.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            lowestPrioritySeen = intent.senderPriority();
            androidPrioritySeen = intent.crossContextSenderPriority();
            androidSenderSeen = intent.senderName();
            current = intent;
            out.reply(intent, this);
        }

        @Override
        public void genMsg(CrossContextIntent o) {
            o.setAction("a");
            o.setCorrelationId(999).setRtReceiveNanos(1).setSenderPriority(3); // the runtime's to set: overwritten
            for (int i = 0; i < current.payloadLength(); i++) {
                o.payload()[i] = current.payload()[current.payloadLength() - 1 - i];
            }
            o.setPayloadLength(current.payloadLength());
            o.setChannel("spoofed"); // the runtime sets the channel, not the component
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static final String APP = Apps.receiver(Answerer.class, 60,
            "<memSizes total=\"8K\" persistent=\"4K\" release=\"4K\"/>",
            Apps.filter("subscriber", "ask") + Apps.filter("publisher", "reply"))
            + "<channel name=\"ask\" type=\"cross-context\" direction=\"in\" capacity=\"2\"><data size=\"16B\"/>"
            + "<allow sender=\"org.example.ui\"/></channel>"
            + "<channel name=\"reply\" type=\"cross-context\" direction=\"out\" capacity=\"4\"><data size=\"16B\"/></channel>";

    private static CrossContextIntent request(String sender, String payload, long id) {
        CrossContextIntent in = new CrossContextIntent();
        in.setChannel("ask").setAction("q").setSender(sender).setSenderPriority(42).setCorrelationId(id)
                .setRtReceiveNanos(123);
        byte[] p = b(payload);
        in.setPayload(p, 0, p.length);
        return in;
    }

    /** Deploys the app "qa", its receiver held in onReceive until {@code holds} count-downs; the cell's endpoint. */
    private CrossContextEndpoint deployQa(int holds) throws Exception {
        Answerer.hold = new CountDownLatch(holds);
        Apps.deploy(host, "qa", APP);
        return host.crossContext();
    }

    @Test
    void deliversAtTheLowestPriorityAndRepliesComeBackOutbound() throws Exception {
        CrossContextEndpoint ep = deployQa(0);
        int ask = ep.channelId(b("xask"), 1, 3);
        assertTrue(ask >= 0);
        assertEquals(-1, ep.channelId(b("nope"), 0, 4));
        int reply = ep.channelId(b("reply"), 0, 5);
        assertTrue(ep.mayReceiveFrom(ask, b("org.example.ui"), 0, 14, 42));
        assertFalse(ep.mayReceiveFrom(ask, b("org.evil"), 0, 8, 42));
        assertFalse(ep.mayReceiveFrom(ask, b("org.example.ui"), 0, 14, 100));
        assertFalse(ep.mayReceiveFrom(reply, b("org.example.ui"), 0, 14, 42));

        assertEquals(CrossContextEndpoint.SENDER_NOT_ALLOWED, ep.deliver(ask, request("org.evil", "x", 1)));
        assertEquals(CrossContextEndpoint.WRONG_DIRECTION, ep.deliver(reply, request("org.example.ui", "x", 1)));
        assertEquals(CrossContextEndpoint.PAYLOAD_TOO_LARGE,
                ep.deliver(ask, request("org.example.ui", "0123456789abcdefg", 1)));
        assertEquals(CrossContextEndpoint.DELIVERED, ep.deliver(ask, request("org.example.ui", "hello", 77)));

        CrossContextIntent out = new CrossContextIntent();
        Apps.await("reply", 5_000, () -> ep.pollOutbound(out));
        assertTrue(out.channelEquals("reply"), out.toString());
        assertTrue(out.actionEquals("a"));
        assertEquals(77, out.correlationId());
        assertEquals(42, out.senderPriority());
        assertEquals(123, out.rtReceiveNanos());
        assertEquals("olleh", new String(out.payload(), 0, out.payloadLength(), StandardCharsets.US_ASCII));
        assertEquals(host.config().minPriority(), Answerer.lowestPrioritySeen, "queued at the cell's lowest priority");
        assertEquals(42, Answerer.androidPrioritySeen, "the receiver reads the Android sender's priority");
        assertEquals("org.example.ui", Answerer.androidSenderSeen, "... and its name");
        assertFalse(ep.pollOutbound(out));
    }

    @Test
    void aFullInboundQueueRefusesAndUndeployInvalidatesIds() throws Exception {
        CrossContextEndpoint ep = deployQa(1);
        int ask = ep.channelId(b("ask"), 0, 3);
        assertEquals(CrossContextEndpoint.DELIVERED, ep.deliver(ask, request("org.example.ui", "1", 1)));
        // The receiver takes #1 and blocks in onReceive: #1 keeps its slot while it is being handled.
        var inbound = host.app("qa").crossContextInbound("ask");
        Apps.await("#1 taken", 5_000, () -> inbound.size() == 0);
        assertEquals(CrossContextEndpoint.DELIVERED, ep.deliver(ask, request("org.example.ui", "2", 2)));
        assertEquals(CrossContextEndpoint.CHANNEL_FULL, ep.deliver(ask, request("org.example.ui", "3", 3)));
        Answerer.hold.countDown();
        CrossContextIntent out = new CrossContextIntent();
        long[] ids = new long[2];
        for (int i = 0; i < 2; i++) {
            int k = i;
            Apps.await("reply " + i, 5_000, () -> {
                if (ep.pollOutbound(out)) {
                    ids[k] = out.correlationId();
                    return true;
                }
                return false;
            });
        }
        assertEquals(1, ids[0]);
        assertEquals(2, ids[1]);
        assertFalse(ep.pollOutbound(out));
        host.undeploy("qa");
        assertEquals(CrossContextEndpoint.NO_SUCH_CHANNEL, ep.deliver(ask, request("org.example.ui", "5", 5)));
        assertEquals(-1, ep.channelId(b("ask"), 0, 3));
        Apps.deploy(host, "qa", APP);
        int again = ep.channelId(b("ask"), 0, 3);
        assertTrue(again >= 0 && again != ask, "a redeployed channel gets a new id");
        assertEquals(CrossContextEndpoint.NO_SUCH_CHANNEL, ep.deliver(ask, request("org.example.ui", "6", 6)));
    }
}
