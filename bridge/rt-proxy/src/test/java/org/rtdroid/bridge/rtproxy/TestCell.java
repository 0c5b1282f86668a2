package org.rtdroid.bridge.rtproxy;

import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.rtdroid.bridge.ConsumerRing;
import org.rtdroid.bridge.Region;
import org.rtdroid.bridge.RegionDescriptor.Counter;
import org.rtdroid.bridge.RegionLayout;
import org.rtdroid.bridge.RegionMemory;
import org.rtdroid.bridge.codec.Frame;
import org.rtdroid.bridge.codec.FrameCodec;
import org.rtdroid.runtime.boot.CellConfig;
import org.rtdroid.runtime.boot.RuntimeHost;
import org.rtdroid.runtime.boot.ServiceStatus;
import org.rtdroid.runtime.manifest.ManifestParser;

/** A real region (direct buffer), a real runtime with the test apps deployed, and an Android-side peer. */
final class TestCell implements AutoCloseable {
    static final String CLIENT = "org.rtdroid.echo.client";

    /**
     * The echo receiver carries on after a failure (counted in its status): it is the proxy's test
     * scaffolding, and once (not in 67 loop runs since) one of its releases allocated 33 KB (cause not found),
     * which under the default policy stopped it and left the proxy tests without replies.
     */
    static final String ECHO_MANIFEST = """
            <manifest>
              <application name="echo">
                <receiver name="org.rtdroid.bridge.rtproxy.testapp.TestEchoReceiver" priority="40" on-failure="continue">
                  <memSizes total="12K" persistent="4K" release="8K"/>
                  <intent-filter role="subscriber" count="1"><action name="echo"/></intent-filter>
                  <intent-filter role="publisher" count="1"><action name="echo"/></intent-filter>
                </receiver>
                <channel name="echo" type="cross-context" direction="both" capacity="%d">
                  <data size="224B"/>
                  <allow sender="org.rtdroid.echo.client"/>
                </channel>
              </application>
            </manifest>
            """;

    static final String TICK_MANIFEST = """
            <manifest>
              <application name="tick">
                <service name="org.rtdroid.bridge.rtproxy.testapp.TickService" priority="60">
                  <memSizes total="24K" persistent="8K" release="8K"/>
                  <periodic-task name="tick">
                    <memSizes release="8K"/>
                    <release start="0ms" periodic="10ms" deadline="10ms"/>
                  </periodic-task>
                </service>
              </application>
            </manifest>
            """;

    final RegionMemory memory;
    final Region rt;
    final Region android;
    final RuntimeHost host;
    final RtProxy proxy;
    final byte[] tx;
    final byte[] rx;
    final Frame frame = new Frame();

    /**
     * @param realtime run component threads SCHED_FIFO at their declared priorities (degrades with
     *     a warning where not permitted)
     */
    TestCell(int slots, int echoCapacity, boolean realtime) throws Exception {
        RegionLayout layout = RegionLayout.of(3, slots, 512);
        memory = RegionMemory.wrap(ByteBuffer.allocateDirect(layout.regionBytes()));
        Region.format(memory, layout);
        rt = Region.attachCell(memory, Region.RT_PEER, true);
        android = Region.attachCell(memory, Region.ANDROID_PEER, true);
        host = RuntimeHost.start(new CellConfig(null, 16L << 20, RtProxy.PROXY_FIFO_PRIORITY, 98, realtime, false, 1024));
        deploy(String.format(ECHO_MANIFEST, echoCapacity));
        proxy = RtProxy.create(rt, host.crossContext(), line -> System.out.println("proxy: " + line));
        tx = new byte[layout.maxFrameBytes()];
        rx = new byte[layout.maxFrameBytes()];
    }

    void deploy(String manifestXml) throws Exception {
        host.deploy(ManifestParser.parse("test.xml", new ByteArrayInputStream(manifestXml.getBytes(StandardCharsets.UTF_8))),
                TestCell.class.getClassLoader());
    }

    /** Android side: one Intent frame on the data ring its priority selects. */
    boolean sendIntent(String channel, String sender, int priority, long correlationId, byte[] payload) {
        frame.clear().seq(correlationId).sendTimeNanos(System.nanoTime());
        frame.selectIntent().action("org.rtdroid.echo.PING").channel(channel).sender(sender).senderPriority(priority)
                .correlationId(correlationId).payload().set(payload, 0, payload.length);
        int len = FrameCodec.encode(frame, tx, 0);
        if (len <= 0) {
            throw new IllegalStateException(FrameCodec.describe(len));
        }
        return android.producer(Region.dataRingFor(priority, 3)).offer(tx, 0, len);
    }

    boolean sendRaw(int ring, byte[] bytes, int len) {
        return android.producer(ring).offer(bytes, 0, len);
    }

    /** Android side: the next intent on any of the RT cell's data rings (ring 1 first), or null. */
    Frame.Intent pollReply(Frame into) {
        for (int r = 1; r < 3; r++) {
            ConsumerRing c = android.consumer(r);
            int n = c.poll(rx);
            if (n > 0 && FrameCodec.decode(rx, 0, n, into) == FrameCodec.OK && into.bodyKind() == Frame.BODY_INTENT) {
                return into.intent();
            }
        }
        return null;
    }

    /** The status of the deployed component or task whose name ends with {@code nameSuffix}. */
    ServiceStatus status(String nameSuffix) {
        for (ServiceStatus st : host.services()) {
            if (st.name().endsWith(nameSuffix)) {
                return st;
            }
        }
        throw new AssertionError("no " + nameSuffix + " in " + host.services());
    }

    /** frames_undeliverable over the RT cell's consumer lines of the data rings. */
    long undeliverable() {
        return rt.counters(Region.ANDROID_PEER, 1).get(Counter.FRAMES_UNDELIVERABLE) + rt.counters(Region.ANDROID_PEER, 2).get(Counter.FRAMES_UNDELIVERABLE);
    }

    @Override
    public void close() throws Exception {
        proxy.stop(2000);
        host.shutdown();
    }
}
