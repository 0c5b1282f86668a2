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
 * @param timing what the manifest declares for static validation only (cost, minimum inter-arrival
 *     time, jitter, CPU, servers, critical sections), read by the same readers as the rest
 */
public record Manifest(String sourceName, String name, int versionCode, List<ComponentDecl> components,
                       List<ChannelDecl> channels, AlarmsDecl alarms, SensorsDecl sensors, TimingDeclarations timing) {

    /** A manifest without timing declarations for the validation. */
    public Manifest(String sourceName, String name, int versionCode, List<ComponentDecl> components,
                    List<ChannelDecl> channels, AlarmsDecl alarms, SensorsDecl sensors) {
        this(sourceName, name, versionCode, components, channels, alarms, sensors, TimingDeclarations.none());
    }

    /** A manifest without {@code <sensors>}. */
    public Manifest(String sourceName, String name, int versionCode, List<ComponentDecl> components,
                    List<ChannelDecl> channels, AlarmsDecl alarms) {
        this(sourceName, name, versionCode, components, channels, alarms, null);
    }

    /**
     * What the RT cell agent refuses in a manifest that parses, beyond the schema and the readers:
     * the one check the deployer and {@code rtdroid validate} both make, so that what validates
     * deploys: a missing {@code versionCode} (the agent orders versions by it; a manifest without
     * one parses, for the runtime's own tests and the standalone runner).
     *
     * @return the problem, to follow {@code "<source>: <manifest>: "}, or null when it may deploy
     */
    public String deployProblem() {
        return versionCode == 0 ? "missing attribute 'versionCode' (a positive integer, raised with every release;"
                + " the cell refuses older versions)" : null;
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
