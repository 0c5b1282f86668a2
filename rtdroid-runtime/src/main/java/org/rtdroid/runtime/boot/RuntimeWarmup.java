package org.rtdroid.runtime.boot;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.rtdroid.runtime.channel.BroadcastPublisher;
import org.rtdroid.runtime.channel.BulkChannel;
import org.rtdroid.runtime.channel.BulkClosure;
import org.rtdroid.runtime.channel.BulkHandler;
import org.rtdroid.runtime.channel.BulkPublisher;
import org.rtdroid.runtime.channel.MessageChannel;
import org.rtdroid.runtime.channel.MessageClosure;
import org.rtdroid.runtime.channel.MessagePublisher;
import org.rtdroid.runtime.channel.MessageStolenException;
import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.component.PeriodicTask;
import org.rtdroid.runtime.component.RealtimeReceiver;
import org.rtdroid.runtime.component.RealtimeService;
import org.rtdroid.runtime.manifest.Manifest;
import org.rtdroid.runtime.manifest.ManifestParser;
import org.rtdroid.runtime.memory.TransferScope;
import org.rtdroid.runtime.xcc.CrossContextClosure;
import org.rtdroid.runtime.xcc.CrossContextEndpoint;
import org.rtdroid.runtime.xcc.CrossContextIntent;
import org.rtdroid.runtime.xcc.CrossContextPublisher;

/**
 * Deploys a small application of the runtime's own when the cell starts, lets it run a few hundred
 * releases through the paths every application's releases take (periodic release, bulk, message
 * and broadcast channels, transfer scopes, a receiver's callback, a cross-context request and its
 * reply), and undeploys it: so those classes are loaded and linked, and that code compiled, before
 * the first real application runs. For the cross-context path this thread plays the RT-side proxy
 * (it runs before the proxy starts): it delivers a request through the runtime's endpoint every
 * millisecond, a receiver replies to each, and it takes the replies off the outbound ring.
 *
 * <p>Why: measured on the host board, the cochlear implant's first deployment after the cell
 * started used up to 1.75 ms of CPU in a recordingTask release (its declared WCET is 1 ms) and
 * 0.91 ms in a processingTask release, deployed a second time 0.28 and 0.31 ms: the difference is
 * the runtime's code run for the first time inside the first releases. Likewise the echo service's
 * first callback on qemu-x86_64 (virtual time) used more than its declared 100 µs while the
 * cross-context delivery and reply were not part of the warm-up. On the QEMU boards the warm-up
 * runs before the boot snapshot is taken, so it is part of the snapshot.
 */
public final class RuntimeWarmup {
    /** Enough releases for the JIT's first tier to compile the release paths (~200 calls). */
    public static final int DEFAULT_RELEASES = 600;
    static final String APP = "rtdroid-runtime-warmup";
    static final String XCC_CHANNEL = "warmup.xcc";
    static final String XCC_SENDER = "rtdroid.warmup";
    private static final long TIMEOUT_NANOS = 120_000_000_000L;

    private RuntimeWarmup() {
    }

    /** @return a line for the console: how many releases, how long, or why it was skipped */
    public static String run(RuntimeHost host, int releases) {
        long t0 = System.nanoTime();
        Sink.consumed = 0;
        Listener.received = 0;
        Replier.replied = 0;
        try {
            int p = host.config().minPriority();
            String xml = manifest(p + 3, p + 2, p + 1);
            Manifest manifest = ManifestParser.parse(APP + ".xml", new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
            host.deploy(manifest, RuntimeWarmup.class.getClassLoader());
            try {
                CrossContextEndpoint endpoint = host.crossContext();
                byte[] channel = XCC_CHANNEL.getBytes(StandardCharsets.US_ASCII);
                int id = endpoint.channelId(channel, 0, channel.length);
                CrossContextIntent request = new CrossContextIntent();
                CrossContextIntent reply = new CrossContextIntent();
                long giveUp = System.nanoTime() + TIMEOUT_NANOS;
                for (long n = 1; (Sink.consumed < releases || Replier.replied < releases) && System.nanoTime() < giveUp; n++) {
                    request.clear().setAction("warmup.ping").setSender(XCC_SENDER).setSenderPriority(10)
                            .setCorrelationId(n).setRtReceiveNanos(System.nanoTime()).putPayloadLong(0, n).setPayloadLength(8);
                    endpoint.deliver(id, request); // a full queue (the receiver behind) just skips one
                    while (endpoint.pollOutbound(reply)) {
                        // the reply reaches no one: the real proxy is not running yet
                    }
                    Thread.sleep(1);
                }
                while (endpoint.pollOutbound(reply)) {
                    // the last replies
                }
            } finally {
                host.undeploy(APP);
            }
        } catch (Exception e) {
            // Only a warm-up: the cell works without it, its first releases are then slower.
            return "rtdroid-runtime: release path warm-up skipped: " + e;
        }
        return String.format(java.util.Locale.ROOT,
                "rtdroid-runtime: release paths warmed up (%d releases, %d callbacks, %d cross-context replies) in %.0f ms",
                Sink.consumed, Listener.received, Replier.replied, (System.nanoTime() - t0) / 1e6);
    }

    private static String manifest(int sourcePriority, int sinkPriority, int listenerPriority) {
        // (the cross-context receiver at the listener's priority: the same priority sets as before)
        String mem = "<memSizes total=\"16K\" persistent=\"4K\" release=\"4K\"/>";
        return """
                <manifest versionCode="1">
                  <application name="%s">
                    <service name="%s" priority="%d">%s
                      <periodic-task name="produce"><memSizes release="8K"/><release periodic="1ms"/></periodic-task>
                      <intent-filter role="publisher" count="1"><action name="warmup.bulk"/></intent-filter>
                      <intent-filter role="publisher" count="1"><action name="warmup.msg"/></intent-filter>
                      <intent-filter role="publisher" count="1"><action name="warmup.out"/></intent-filter>
                    </service>
                    <service name="%s" priority="%d">%s
                      <periodic-task name="consume"><memSizes release="8K"/><release start="500us" periodic="1ms"/></periodic-task>
                      <intent-filter role="subscriber" count="1"><action name="warmup.bulk"/></intent-filter>
                      <intent-filter role="subscriber" count="4"><action name="warmup.msg"/></intent-filter>
                    </service>
                    <receiver name="%s" priority="%d"><memSizes total="8K" persistent="4K" release="4K"/>
                      <intent-filter role="subscriber" count="1"><action name="warmup.out"/></intent-filter>
                    </receiver>
                    <receiver name="%s" priority="%d"><memSizes total="8K" persistent="4K" release="4K"/>
                      <intent-filter role="subscriber" count="1"><action name="%s"/></intent-filter>
                      <intent-filter role="publisher" count="1"><action name="%s"/></intent-filter>
                    </receiver>
                    <channel name="warmup.bulk" type="rt-bulk" capacity="4"><drop>oldest</drop><data size="576B"/></channel>
                    <channel name="warmup.msg" type="rt-msg" capacity="4"><data size="8B"/></channel>
                    <channel name="warmup.out" type="rt-broadcast" capacity="4"><drop>priority&amp;oldest</drop><data size="64B"/></channel>
                    <channel name="%s" type="cross-context" direction="both" capacity="4"><data size="64B"/><allow sender="%s"/></channel>
                  </application>
                </manifest>
                """.formatted(APP, Source.class.getName(), sourcePriority, mem, Sink.class.getName(), sinkPriority, mem,
                Listener.class.getName(), listenerPriority, Replier.class.getName(), listenerPriority, XCC_CHANNEL, XCC_CHANNEL,
                XCC_CHANNEL, XCC_SENDER);
    }

    /** Every millisecond: a 576-byte block on the bulk channel, a message, a broadcast. */
    public static final class Source extends RealtimeService {
        private BulkPublisher bulk;
        private MessagePublisher messages;
        private BroadcastPublisher out;

        @Override
        public void onCreate() {
            bulk = bulkPublisher("warmup.bulk");
            messages = messagePublisher("warmup.msg");
            out = broadcastPublisher("warmup.out");
        }

        @Override
        public void onStartCommand() {
            registerTask("produce", new Produce());
        }

        private final class Produce extends PeriodicTask implements BulkClosure, MessageClosure {
            private final float[] block = new float[128];
            private long n;

            @Override
            public void onRelease() {
                n++;
                for (int i = 0; i < block.length; i++) {
                    block[i] = (float) Math.sin(0.01 * (n * block.length + i));
                }
                try {
                    bulk.send(this);
                    messages.send(this);
                    out.broadcast(this);
                } catch (MessageStolenException e) {
                    // a consumer fell behind: the channel counted it
                }
            }

            @Override
            public void genMsg(TransferScope scope) {
                long base = scope.allocate(8 + 4L * block.length);
                scope.putLong(base, n);
                scope.copyFrom(block, 0, base + 8, block.length);
            }

            @Override
            public void genMsg(RealtimeIntent m) {
                m.setAction("warmup");
                m.putLong(0, n);
            }
        }
    }

    /** Every millisecond, half a period later: every block and message waiting. */
    public static final class Sink extends RealtimeService {
        static volatile int consumed;
        private BulkChannel bulk;
        private MessageChannel messages;
        private final RealtimeIntent message = new RealtimeIntent("warmup.msg", 8);

        @Override
        public void onCreate() {
            bulk = bulkChannel("warmup.bulk");
            messages = messageChannel("warmup.msg");
        }

        @Override
        public void onStartCommand() {
            registerTask("consume", new Consume());
        }

        private final class Consume extends PeriodicTask implements BulkHandler {
            private final float[] x = new float[128];
            private double energy;

            @Override
            public void onRelease() {
                while (bulk.receive(this)) {
                    // onBulk did the work
                }
                while (messages.receive(message)) {
                    energy += message.getLong(0);
                }
                consumed++;
            }

            @Override
            public void onBulk(TransferScope in) {
                in.copyTo(8, x, 0, x.length);
                for (float v : x) {
                    energy += v * v;
                }
            }
        }
    }

    /** Each broadcast, on its own thread. */
    public static final class Listener extends RealtimeReceiver {
        static volatile int received;

        @Override
        public void onReceive(RealtimeIntent intent) {
            received++;
        }
    }

    /** Each cross-context request: a reply with its payload, as a service answering the Android cell does. */
    public static final class Replier extends RealtimeReceiver implements CrossContextClosure {
        static volatile int replied;
        private CrossContextPublisher replies;
        private RealtimeIntent request;

        @Override
        public void onCreate() {
            replies = crossContextPublisher(XCC_CHANNEL);
        }

        @Override
        public void onReceive(RealtimeIntent intent) {
            request = intent;
            if (replies.reply(intent, this) == CrossContextPublisher.PUBLISHED) {
                replied++;
            }
        }

        @Override
        public void onClean() {
            request = null;
        }

        @Override
        public void genMsg(CrossContextIntent out) {
            out.setAction("warmup.pong");
            out.setSender(APP);
            out.setPayload(request.payload(), 0, request.payloadLength());
        }
    }
}
