package org.rtdroid.examples;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.BooleanSupplier;
import org.rtdroid.runtime.boot.CellConfig;
import org.rtdroid.runtime.boot.DeployedApp;
import org.rtdroid.runtime.boot.RuntimeHost;
import org.rtdroid.runtime.manifest.Manifest;
import org.rtdroid.runtime.manifest.ManifestParser;
import org.rtdroid.runtime.xcc.CrossContextEndpoint;
import org.rtdroid.runtime.xcc.CrossContextIntent;

/** Deploys an example app from its shipped manifest into a real (unprivileged) RuntimeHost. */
final class AppHarness {
    private AppHarness() {}

    static RuntimeHost host() {
        return RuntimeHost.start(CellConfig.unprivileged(16L << 20));
    }

    static DeployedApp deploy(RuntimeHost host, String app) throws Exception {
        return deploy(host, app, xml -> xml);
    }

    /** Deploys the app with its shipped manifest as {@code edit} changes it (a test's variant). */
    static DeployedApp deploy(RuntimeHost host, String app, java.util.function.UnaryOperator<String> edit)
            throws Exception {
        Path file = Path.of("src/main/manifests", app, "manifest.xml");
        String xml = edit.apply(Files.readString(file));
        Manifest m;
        try (InputStream in = new java.io.ByteArrayInputStream(xml.getBytes(java.nio.charset.StandardCharsets.UTF_8))) {
            m = ManifestParser.parse(file.toString(), in);
        }
        return host.deploy(m, AppHarness.class.getClassLoader());
    }

    static int deliver(RuntimeHost host, String channel, String action, String sender, long correlationId,
                       byte[] payload) {
        CrossContextEndpoint ep = host.crossContext();
        byte[] name = channel.getBytes();
        int id = ep.channelId(name, 0, name.length);
        CrossContextIntent in = new CrossContextIntent().setChannel(channel).setAction(action).setSender(sender)
                .setSenderPriority(20).setCorrelationId(correlationId).setRtReceiveNanos(System.nanoTime());
        in.setPayload(payload, 0, payload.length);
        return ep.deliver(id, in);
    }

    static void await(String what, long millis, BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + millis * 1_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("timed out after " + millis + " ms waiting for: " + what);
            }
            Thread.sleep(2);
        }
    }
}
