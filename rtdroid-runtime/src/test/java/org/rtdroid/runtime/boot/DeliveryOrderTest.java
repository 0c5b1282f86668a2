package org.rtdroid.runtime.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.channel.ChannelSender;
import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.component.RealtimeReceiver;
import org.rtdroid.runtime.component.RealtimeService;

class DeliveryOrderTest {
    private final RuntimeHost host = Apps.host();

    @AfterEach
    void tearDown() {
        host.shutdown();
    }

    /** Declares the publisher ends; the test sends through the channels directly at chosen priorities. */
    public static final class Publisher extends RealtimeService {}

    public static final class OrderReceiver extends RealtimeReceiver {
        static volatile CountDownLatch entered;
        static volatile CountDownLatch proceed;
        static final List<String> SEEN = Collections.synchronizedList(new ArrayList<>());
        static volatile Thread callbackThread;
        int cleaned;

        @Override
        public void onReceive(RealtimeIntent intent) {
            callbackThread = Thread.currentThread();
            if (intent.what == 0) {
                entered.countDown();
                try {
                    proceed.await(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return;
            }
            SEEN.add(intent.channelName() + ":" + intent.senderPriority() + ":" + intent.what + ":" + cleaned);
        }

        @Override
        public void onClean() {
            cleaned++;
        }
    }

    @Test
    void intentsReachAReceiverInSenderPriorityOrderAcrossChannelsOneAtATime() throws Exception {
        OrderReceiver.entered = new CountDownLatch(1);
        OrderReceiver.proceed = new CountDownLatch(1);
        OrderReceiver.SEEN.clear();
        String mem = "<memSizes total=\"8K\" persistent=\"4K\" release=\"4K\"/>";
        DeployedApp app = Apps.deploy(host, "order",
                Apps.service(Publisher.class, 70, mem, Apps.filter("publisher", "msgs") + Apps.filter("publisher", "alerts"))
                + Apps.receiver(OrderReceiver.class, 40, mem,
                        Apps.filter("subscriber", "msgs") + Apps.filter("subscriber", "alerts"))
                + "<channel name=\"msgs\" type=\"rt-msg\" capacity=\"8\"><data size=\"16B\"/></channel>"
                + "<channel name=\"alerts\" type=\"rt-broadcast\" capacity=\"4\"><data size=\"16B\"/></channel>");
        var msgs = app.messageChannel("msgs");
        var alerts = app.broadcastChannel("alerts");
        // Block the receiver in a first callback, queue intents of mixed priorities behind it.
        msgs.send(new ChannelSender("msgs", "blocker", 1, true), m -> m.what = 0);
        assertTrue(OrderReceiver.entered.await(5, TimeUnit.SECONDS));
        msgs.send(new ChannelSender("msgs", "p10", 10, true), m -> m.what = 1);
        long queued = System.nanoTime();  // p10 was sent before this instant
        msgs.send(new ChannelSender("msgs", "p50", 50, true), m -> m.what = 2);
        alerts.broadcast(new ChannelSender("alerts", "p40", 40, true), m -> m.what = 3);
        msgs.send(new ChannelSender("msgs", "p30", 30, true), m -> m.what = 4);
        msgs.send(new ChannelSender("msgs", "p50b", 50, true), m -> m.what = 5);
        long held = System.nanoTime();    // p10 cannot complete before this instant
        OrderReceiver.proceed.countDown();
        Apps.await("5 deliveries", 5_000, () -> OrderReceiver.SEEN.size() == 5);
        // Highest sender priority first, oldest first among equals; onClean ran after every onReceive.
        assertEquals(List.of("msgs:50:2:1", "msgs:50:5:2", "alerts:40:3:3", "msgs:30:4:4", "msgs:10:1:5"),
                List.copyOf(OrderReceiver.SEEN));
        assertTrue(OrderReceiver.callbackThread.getName().contains("OrderReceiver"),
                "callbacks run on the receiver's own thread, at its priority");
        // The measured worst response (send to the end of the callback) covers the wait behind the
        // blocker, and is never below the delivery delay (send to the start of the callback).
        ServiceStatus row = host.services().stream().filter(s -> s.name().equals("order/OrderReceiver")).findFirst()
                .orElseThrow();
        assertTrue(row.worstResponseNanos() >= held - queued, row.worstResponseNanos() + " ns < " + (held - queued));
        assertTrue(row.worstResponseNanos() >= row.worstLatenessNanos(), row.toString());
    }
}
