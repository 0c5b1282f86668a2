package org.rtdroid.runtime.boot;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;
import org.rtdroid.runtime.manifest.Manifest;
import org.rtdroid.runtime.manifest.ManifestException;
import org.rtdroid.runtime.manifest.ManifestParser;

/** Helpers for tests that deploy small applications into a real RuntimeHost. */
final class Apps {
    private Apps() {}

    static Manifest manifest(String name, String body) throws ManifestException {
        String xml = "<manifest>\n<application name=\"" + name + "\">\n" + body + "\n</application>\n</manifest>\n";
        return ManifestParser.parse(name + ".xml", new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    }

    static RuntimeHost host() {
        return RuntimeHost.start(CellConfig.unprivileged(64L << 20));
    }

    static DeployedApp deploy(RuntimeHost host, String name, String body) throws Exception {
        return host.deploy(manifest(name, body), Apps.class.getClassLoader());
    }

    /** Waits (polling) until the condition holds; fails after {@code millis}. */
    static void await(String what, long millis, BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + millis * 1_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("timed out after " + millis + " ms waiting for: " + what);
            }
            Thread.sleep(2);
        }
    }

    static String service(Class<?> cls, int priority, String mem, String inner) {
        return "<service name=\"" + cls.getName() + "\" priority=\"" + priority + "\">" + mem + inner + "</service>\n";
    }

    static String receiver(Class<?> cls, int priority, String mem, String inner) {
        return "<receiver name=\"" + cls.getName() + "\" priority=\"" + priority + "\">" + mem + inner + "</receiver>\n";
    }

    static String task(String name, String period, String release) {
        return "<periodic-task name=\"" + name + "\"><memSizes release=\"" + release + "\"/>"
                + "<release periodic=\"" + period + "\"/></periodic-task>";
    }

    static String filter(String role, String channel) {
        return "<intent-filter role=\"" + role + "\" count=\"1\"><action name=\"" + channel + "\"/></intent-filter>";
    }
}
