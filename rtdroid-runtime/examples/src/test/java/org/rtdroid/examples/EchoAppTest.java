package org.rtdroid.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rtdroid.examples.echo.EchoReceiver;
import org.rtdroid.runtime.boot.DeployedApp;
import org.rtdroid.runtime.boot.RuntimeHost;
import org.rtdroid.runtime.xcc.CrossContextEndpoint;
import org.rtdroid.runtime.xcc.CrossContextIntent;

class EchoAppTest {
    private final RuntimeHost host = AppHarness.host();

    @AfterEach
    void tearDown() {
        host.shutdown();
    }

    @Test
    void pingIsAnsweredWithPongSamePayloadSameCorrelationId() throws Exception {
        DeployedApp app = AppHarness.deploy(host, "echo");
        byte[] payload = new byte[224];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) (i * 7);
        }
        assertEquals(CrossContextEndpoint.DELIVERED,
                AppHarness.deliver(host, "echo", EchoReceiver.PING, "org.example.any", 0xABCDEF01L, payload));
        CrossContextIntent out = new CrossContextIntent();
        AppHarness.await("PONG", 5_000, () -> host.crossContext().pollOutbound(out));
        assertTrue(out.channelEquals("echo"), out.toString());
        assertTrue(out.actionEquals(EchoReceiver.PONG), out.toString());
        assertEquals(0xABCDEF01L, out.correlationId());
        assertEquals(224, out.payloadLength());
        for (int i = 0; i < payload.length; i++) {
            assertEquals(payload[i], out.payload()[i], "payload byte " + i);
        }
        assertEquals(20, out.senderPriority(), "the reply keeps the requester's priority class");
        assertTrue(out.rtReceiveNanos() > 0, "the proxy's receive stamp travels back");

        // Anything but a PING is ignored.
        assertEquals(CrossContextEndpoint.DELIVERED, AppHarness.deliver(host, "echo", "org.rtdroid.echo.OTHER",
                "org.example.any", 1, "x".getBytes(StandardCharsets.US_ASCII)));
        EchoReceiver echo = (EchoReceiver) app.component(EchoReceiver.class.getName());
        AppHarness.await("ignored", 5_000, () -> echo.ignored() == 1);
        assertFalse(host.crossContext().pollOutbound(out));
        assertEquals(1, echo.pongs());
    }

    @Test
    void manyPingsInARowAllComeBackInOrder() throws Exception {
        AppHarness.deploy(host, "echo");
        CrossContextIntent out = new CrossContextIntent();
        for (int i = 0; i < 200; i++) {
            byte[] p = {(byte) i};
            assertEquals(CrossContextEndpoint.DELIVERED,
                    AppHarness.deliver(host, "echo", EchoReceiver.PING, "org.example.any", 1000 + i, p));
            AppHarness.await("PONG " + i, 5_000, () -> host.crossContext().pollOutbound(out));
            assertEquals(1000 + i, out.correlationId());
            assertEquals((byte) i, out.payload()[0]);
        }
    }
}
