package org.rtdroid.runtime.manifest;

import java.util.List;
import java.util.Map;

/**
 * What a manifest declares for static validation beyond what the runtime needs to run it (read by
 * {@link ManifestReader} with the rest of each element, in either vocabulary; a manifest's are its
 * {@link Manifest#timing()}: this record reads nothing itself), each with its source line:
 * <ul>
 *   <li>per component ({@code <service>}/{@code <receiver>}, nested or not): {@code cost},
 *       {@code min-interarrival} (or chapter 5's {@code <time><cost>…<periodic>}, the minimum
 *       interval between two releases of a sporadic component, Table 5.1), {@code jitter},
 *       {@code cpu}, and a {@code <server budget period priority>} for aperiodic work;</li>
 *   <li>per periodic task: {@code jitter} (on {@code <release>} or in {@code <time>}) and {@code cpu};</li>
 *   <li>per channel: {@code min-interarrival} (sporadic inbound load of a cross-context channel) and
 *       {@code critical-section} (the longest time a user holds the channel's lock);</li>
 *   <li>{@code <uses resource critical-section>}: a shared object a component or task locks;</li>
 *   <li>the line of every {@code <memSizes>}/{@code <mem-size>};</li>
 *   <li>on {@code <alarms>}: {@code min-interarrival}, the shortest interval at which any one alarm
 *       of the application fires again (its shortest repeating interval, or the shortest time
 *       between two sets of one pending intent), and {@code fire-cost}, the alarm thread's time for
 *       one fire ({@code alarms}, null without {@code <alarms>});</li>
 *   <li>on {@code <sensors>}: {@code min-interarrival}, the shortest interval between two frames of
 *       one input device (the device's rate, or the fastest sampling period the listeners ask for
 *       if the device is set to it), {@code frame-cost}, the polling thread's time to read one
 *       frame, {@code processing-cost}, a processing thread's time for one frame, and
 *       {@code types}, the sensor types the application's listeners use (space-separated
 *       {@code accelerometer gyroscope orientation}; all three when not declared)
 *       ({@code sensors}, null without {@code <sensors>}).</li>
 * </ul>
 * Durations are nanoseconds, {@code -1} when not declared.
 */
public record TimingDeclarations(Map<String, Timing> components, Map<String, Timing> tasks,
                                 Map<String, ChannelTiming> channels, List<SharedUse> sharedUses,
                                 Map<String, Integer> memSizesLines, AlarmsTiming alarms,
                                 SensorsTiming sensors) {

    /** The sensor types {@code <sensors types>} may name, in the order the model lists them. */
    public static final List<String> SENSOR_TYPES = List.of("accelerometer", "gyroscope", "orientation");

    /** The {@code <alarms>} element's timing: -1 where not declared. */
    public record AlarmsTiming(long minInterArrivalNanos, long fireCostNanos, int line) {}

    /** The {@code <sensors>} element's timing: -1 where not declared; {@code types} never empty. */
    public record SensorsTiming(long minInterArrivalNanos, long frameCostNanos, long processingCostNanos,
                                List<String> types, int line) {}

    /** Timing of a component (key: class name) or periodic task (key: task name). */
    public record Timing(long costNanos, long minInterArrivalNanos, long jitterNanos, int cpu, Server server, int line) {}

    /** A declared server for aperiodic work: {@code budget} every {@code period} at {@code priority}. */
    public record Server(long budgetNanos, long periodNanos, int priority, int line) {}

    public record ChannelTiming(long minInterArrivalNanos, long criticalSectionNanos, int line) {}

    /** {@code owner} (component class or task name) holds {@code resource}'s lock for up to the given time. */
    public record SharedUse(String owner, String resource, long criticalSectionNanos, int line) {}

    /** No declarations (a manifest known only parsed: its tasks' wcet is all the analysis gets). */
    public static TimingDeclarations none() {
        return new TimingDeclarations(Map.of(), Map.of(), Map.of(), List.of(), Map.of(), null, null);
    }
}
