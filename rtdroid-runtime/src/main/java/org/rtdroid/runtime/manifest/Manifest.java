package org.rtdroid.runtime.manifest;

import java.util.List;

/**
 * A parsed and validated RTDroid application manifest: the application's name, its version, its
 * components, its channels, its alarms and its sensors. Immutable.
 *
 * @param versionCode the root element's {@code versionCode} (a positive integer, as Android's
 *     {@code android:versionCode}); 0 when the manifest declares none. The RT cell agent refuses a
 *     bundle older than the one it deployed last, and a bundle without a version.
 * @param alarms the application's {@code <alarms>}, or null: it gets no AlarmManager
 * @param sensors the application's {@code <sensors>}, or null: it gets no SensorManager
 */
public record Manifest(String sourceName, String name, int versionCode, List<ComponentDecl> components,
                       List<ChannelDecl> channels, AlarmsDecl alarms, SensorsDecl sensors) {

    /** A manifest without {@code <sensors>}. */
    public Manifest(String sourceName, String name, int versionCode, List<ComponentDecl> components,
                    List<ChannelDecl> channels, AlarmsDecl alarms) {
        this(sourceName, name, versionCode, components, channels, alarms, null);
    }

    public List<ComponentDecl> services() {
        return components.stream().filter(c -> c.kind() == ComponentKind.SERVICE).toList();
    }

    public List<ComponentDecl> receivers() {
        return components.stream().filter(c -> c.kind() == ComponentKind.RECEIVER).toList();
    }

    /** @return the channel of that name, or null */
    public ChannelDecl channel(String channelName) {
        for (ChannelDecl c : channels) {
            if (c.name().equals(channelName)) {
                return c;
            }
        }
        return null;
    }

    /** Sum of every component's {@code total}: the bytes of scoped memory the app needs. */
    public long totalScopeBytes() {
        long sum = 0;
        for (ComponentDecl c : components) {
            sum += c.memSizes().totalBytes();
        }
        return sum;
    }

    /** Pre-allocated channel bytes: capacity × data size per channel. */
    public long totalChannelBytes() {
        long sum = 0;
        for (ChannelDecl c : channels) {
            sum += (long) c.capacity() * c.dataSizeBytes();
        }
        return sum;
    }

    /** Σ wcet/period over periodic tasks that declare a wcet (the utilization bound). */
    public double utilization() {
        double u = 0;
        for (ComponentDecl c : components) {
            for (PeriodicTaskDecl t : c.tasks()) {
                if (t.wcetNanos() > 0) {
                    u += (double) t.wcetNanos() / t.periodNanos();
                }
            }
        }
        return u;
    }
}
