package org.rtdroid.rtcell.agent.client;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.List;
import org.rtdroid.bridge.Backoff;
import org.rtdroid.bridge.ConsumerRing;
import org.rtdroid.bridge.Region;
import org.rtdroid.bridge.RegionMemory;
import org.rtdroid.bridge.codec.Frame;
import org.rtdroid.bridge.codec.FrameCodec;
import org.rtdroid.rtcell.agent.Bundle;
import org.rtdroid.rtcell.agent.DeployKey;
import org.rtdroid.rtcell.agent.ResultCode;

/**
 * A developer's Java client for a running RT cell agent (the project's user-facing tool is the
 * Python {@code rtdroid} CLI; this one exists so the agent can be checked end to end with nothing
 * but the JDK):
 * <pre>
 *   keygen   --out DIR                                 DIR/deploy.key, DIR/deploy.pub (Ed25519 PEM)
 *   bundle   --manifest M --jar J --key K --out B.rtb  build and sign a bundle
 *   deploy   --region P --bundle B.rtb [--name N]      deploy; prints the DEPLOY_RESULT
 *   undeploy --region P --name N
 *   services --region P
 *   stats    --region P
 *   hello    --region P
 *   ping     --region P [--channel echo] [--action org.rtdroid.echo.PING] [--sender S] [--priority 50] [--text T]
 * </pre>
 * Management commands hold {@code flock(<region>.lock)} for the whole exchange (region-spec.md).
 * {@code ping} attaches as the Android cell (peer 1), so run it only when no Android cell is up.
 * Exit status: 0 when the answer's code is OK, 1 otherwise, 2 on a usage error.
 */
public final class AgentClient {
    private static final long TIMEOUT_NANOS = 30_000_000_000L;

    private AgentClient() {
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(args));
    }

    static int run(String[] args) throws Exception {
        if (args.length == 0) {
            System.err.println("usage: AgentClient keygen|bundle|deploy|undeploy|services|stats|hello|ping [--opt value]...");
            return 2;
        }
        java.util.Map<String, String> o = new java.util.HashMap<>();
        for (int i = 1; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                System.err.println("expected --option value, got '" + args[i] + "'");
                return 2;
            }
            o.put(args[i].substring(2), args[++i]);
        }
        switch (args[0]) {
            case "keygen": {
                Path dir = Path.of(need(o, "out"));
                Files.createDirectories(dir);
                KeyPair kp = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
                Files.writeString(dir.resolve("deploy.key"), DeployKey.toPem(kp.getPrivate()));
                Files.writeString(dir.resolve("deploy.pub"), DeployKey.toPem(kp.getPublic()));
                System.out.println("wrote " + dir.resolve("deploy.key") + " and " + dir.resolve("deploy.pub"));
                return 0;
            }
            case "bundle": {
                byte[] manifest = Files.readAllBytes(Path.of(need(o, "manifest")));
                byte[] jar = Files.readAllBytes(Path.of(need(o, "jar")));
                var key = DeployKey.privateFromPem(Files.readString(Path.of(need(o, "key"))), need(o, "key"));
                Files.write(Path.of(need(o, "out")), Bundle.build(manifest, jar, key));
                System.out.println("wrote " + need(o, "out"));
                return 0;
            }
            case "ping":
                return ping(o);
            default:
                return management(args[0], o);
        }
    }

    private static int management(String command, java.util.Map<String, String> o) throws IOException {
        Path regionPath = Path.of(need(o, "region"));
        try (FileChannel lockFile = FileChannel.open(Path.of(regionPath + ".lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE); FileLock lock = lockFile.lock();
                RegionMemory memory = RegionMemory.mapFile(regionPath)) {
            Region region = Region.attachManagement(memory, Region.ANDROID_PEER);
            ManagementClient client = new ManagementClient(region);
            switch (command) {
                case "deploy": {
                    Path bundle = Path.of(need(o, "bundle"));
                    String name = o.containsKey("name") ? o.get("name") : manifestName(bundle);
                    return print(client.deploy(name, Files.readAllBytes(bundle), TIMEOUT_NANOS));
                }
                case "undeploy":
                    return print(client.request(Frame.Control.UNDEPLOY, need(o, "name"), TIMEOUT_NANOS));
                case "stats":
                    return print(client.request(Frame.Control.STATS_REQUEST, "", TIMEOUT_NANOS));
                case "hello":
                    return print(client.request(Frame.Control.HELLO, "", TIMEOUT_NANOS));
                case "services": {
                    List<Frame.Control> rows = client.listServices(TIMEOUT_NANOS);
                    for (Frame.Control c : rows) {
                        if (c.service().count() > 0) {
                            Frame.ServiceInfo s = c.service();
                            System.out.println(s.nameString() + " state=" + s.stateString() + " releases=" + s.releases()
                                    + " deadline_misses=" + s.deadlineMisses() + " worst_lateness_ns="
                                    + s.worstLatenessNanos());
                        } else {
                            System.out.println("(no services deployed)");
                        }
                    }
                    return 0;
                }
                default:
                    System.err.println("unknown command " + command);
                    return 2;
            }
        }
    }

    /** The bundle name is the manifest's application name: read it from the bundle's manifest. */
    static String manifestName(Path bundle) throws IOException {
        try (var zip = new java.util.zip.ZipFile(bundle.toFile())) {
            var e = zip.getEntry(Bundle.MANIFEST_ENTRY);
            if (e == null) {
                return bundle.getFileName().toString().replaceFirst("\\.rtb$", "");
            }
            String xml = new String(zip.getInputStream(e).readAllBytes(), StandardCharsets.UTF_8);
            var m = java.util.regex.Pattern.compile("<application[^>]*\\sname\\s*=\\s*\"([^\"]+)\"").matcher(xml);
            return m.find() ? m.group(1) : bundle.getFileName().toString().replaceFirst("\\.rtb$", "");
        }
    }

    private static int print(Frame.Control c) {
        String kind = c.kind() == Frame.Control.DEPLOY_RESULT ? "DEPLOY_RESULT" : c.kind() == Frame.Control.ACK ? "ACK"
                : c.kind() == Frame.Control.ERROR ? "ERROR" : c.kind() == Frame.Control.HELLO ? "HELLO"
                : c.kind() == Frame.Control.STATS ? "STATS" : "kind " + c.kind();
        System.out.println(kind + " " + ResultCode.name(c.code()) + " " + c.subjectString() + ": " + c.textString()
                + (c.hasStats() ? " " + c.stats() : ""));
        return c.code() == ResultCode.OK ? 0 : 1;
    }

    private static int ping(java.util.Map<String, String> o) throws IOException {
        Path regionPath = Path.of(need(o, "region"));
        String channel = o.getOrDefault("channel", "echo");
        String action = o.getOrDefault("action", "org.rtdroid.echo.PING");
        String sender = o.getOrDefault("sender", "org.rtdroid.echo.client");
        int priority = Integer.parseInt(o.getOrDefault("priority", "50"));
        byte[] payload = o.getOrDefault("text", "hello rt cell").getBytes(StandardCharsets.UTF_8);
        try (RegionMemory memory = RegionMemory.mapFile(regionPath)) {
            Region region = Region.attachCell(memory, Region.ANDROID_PEER, false);
            Frame f = new Frame();
            long correlation = System.nanoTime();
            f.seq(1).sendTimeNanos(System.nanoTime());
            f.selectIntent().action(action).channel(channel).sender(sender).senderPriority(priority)
                    .correlationId(correlation).payload().set(payload, 0, payload.length);
            byte[] tx = new byte[region.layout().maxFrameBytes()];
            int len = FrameCodec.encode(f, tx, 0);
            long sent = System.nanoTime();
            if (!region.producer(Region.dataRingFor(priority, region.layout().rings())).offer(tx, 0, len)) {
                System.err.println("data ring full");
                return 1;
            }
            byte[] rx = new byte[region.layout().maxFrameBytes()];
            Frame reply = new Frame();
            Backoff b = new Backoff(1000, 10, 10_000, 1_000_000);
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (System.nanoTime() < deadline) {
                boolean got = false;
                for (int r = 1; r < region.layout().rings(); r++) {
                    ConsumerRing ring = region.consumer(r);
                    int n = ring.poll(rx);
                    if (n > 0) {
                        got = true;
                        if (FrameCodec.decode(rx, 0, n, reply) == FrameCodec.OK && reply.bodyKind() == Frame.BODY_INTENT
                                && reply.intent().correlationId() == correlation) {
                            long rtt = System.nanoTime() - sent;
                            Frame.Intent in = reply.intent();
                            System.out.println("reply " + in.actionString() + " on " + in.channelString() + ": '"
                                    + new String(in.payload().toByteArray(), StandardCharsets.UTF_8) + "' round trip "
                                    + rtt / 1000 + " us, in RT cell " + (in.rtReplyNanos() - in.rtReceiveNanos()) / 1000
                                    + " us");
                            region.setState(Region.STATE_RESET);
                            return 0;
                        }
                    }
                }
                if (!got) {
                    b.idle();
                } else {
                    b.reset();
                }
            }
            region.setState(Region.STATE_RESET);
            System.err.println("no reply within 10 s");
            return 1;
        }
    }

    private static String need(java.util.Map<String, String> o, String key) {
        String v = o.get(key);
        if (v == null) {
            throw new IllegalArgumentException("missing --" + key);
        }
        return v;
    }

}
