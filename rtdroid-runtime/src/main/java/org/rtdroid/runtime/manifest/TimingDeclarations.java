package org.rtdroid.runtime.manifest;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a manifest declares for static validation beyond what the runtime needs to run it, in
 * either vocabulary, each with its source line:
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

    /** Reads the declarations of a manifest's bytes (the same bytes {@link ManifestParser} accepted). */
    public static TimingDeclarations read(String src, byte[] bytes) throws ManifestException {
        ManifestParser.Element root = ManifestParser.readTree(src, bytes);
        TimingDeclarations d = new TimingDeclarations(new LinkedHashMap<>(), new LinkedHashMap<>(),
                new LinkedHashMap<>(), new ArrayList<>(), new LinkedHashMap<>(), null, null);
        Walker w = new Walker(src, d);
        if (root != null) {
            w.walk(root);
        }
        return new TimingDeclarations(d.components, d.tasks, d.channels, d.sharedUses, d.memSizesLines, w.alarms,
                w.sensors);
    }

    private static final class Walker {
        final String src;
        final TimingDeclarations d;
        AlarmsTiming alarms;
        SensorsTiming sensors;

        Walker(String src, TimingDeclarations d) {
            this.src = src;
            this.d = d;
        }

        void walk(ManifestParser.Element e) throws ManifestException {
            for (ManifestParser.Element c : e.children) {
                switch (c.name) {
                    case "application" -> walk(c);
                    case "service", "receiver" -> component(c);
                    case "channel" -> d.channels.put(c.attrs.getOrDefault("name", ""), new ChannelTiming(
                            duration(c, c.attrs.get("min-interarrival")),
                            duration(c, c.attrs.get("critical-section")), c.line));
                    case "alarms" -> alarms = new AlarmsTiming(duration(c, c.attrs.get("min-interarrival")),
                            duration(c, c.attrs.get("fire-cost")), c.line);
                    case "sensors" -> sensors = new SensorsTiming(duration(c, c.attrs.get("min-interarrival")),
                            duration(c, c.attrs.get("frame-cost")), duration(c, c.attrs.get("processing-cost")),
                            sensorTypes(c), c.line);
                    default -> { }
                }
            }
        }

        private List<String> sensorTypes(ManifestParser.Element e) throws ManifestException {
            String text = e.attrs.get("types");
            if (text == null) {
                return SENSOR_TYPES;
            }
            List<String> types = new ArrayList<>();
            for (String t : text.trim().split("\\s+")) {
                if (!SENSOR_TYPES.contains(t)) {
                    throw new ManifestException(src, e.line, e.name, "types: '" + t + "' is not a sensor type (expected "
                            + String.join(", ", SENSOR_TYPES) + ", space-separated)");
                }
                if (types.contains(t)) {
                    throw new ManifestException(src, e.line, e.name, "types: '" + t + "' is named twice");
                }
                types.add(t);
            }
            return List.copyOf(types);
        }

        private void component(ManifestParser.Element e) throws ManifestException {
            String name = e.attrs.getOrDefault("name", "");
            long cost = duration(e, e.attrs.get("cost"));
            long mit = duration(e, e.attrs.get("min-interarrival"));
            long jitter = duration(e, e.attrs.get("jitter"));
            Server server = null;
            for (ManifestParser.Element c : e.children) {
                switch (c.name) {
                    case "time" -> {
                        cost = pick(cost, timeChild(c, "cost"));
                        mit = pick(mit, timeChild(c, "periodic"));
                        jitter = pick(jitter, timeChild(c, "jitter"));
                    }
                    case "server" -> server = server(c);
                    case "uses" -> uses(name, c);
                    case "memSizes", "mem-size" -> d.memSizesLines.put(name, c.line);
                    case "periodic-task" -> task(c);
                    case "receiver" -> component(c);
                    default -> { }
                }
            }
            d.components.put(name, new Timing(cost, mit, jitter, cpu(e), server, e.line));
        }

        private Server server(ManifestParser.Element c) throws ManifestException {
            long budget = required(c, "budget");
            long period = required(c, "period");
            int priority = integer(c, "priority");
            if (priority < ManifestParser.MIN_PRIORITY || priority > ManifestParser.MAX_PRIORITY) {
                throw new ManifestException(src, c.line, c.name, "priority " + priority + " is outside "
                        + ManifestParser.MIN_PRIORITY + ".." + ManifestParser.MAX_PRIORITY);
            }
            if (budget > period) {
                throw new ManifestException(src, c.line, c.name, "budget exceeds the period");
            }
            return new Server(budget, period, priority, c.line);
        }

        private void task(ManifestParser.Element e) throws ManifestException {
            String name = e.attrs.getOrDefault("name", "");
            long cost = pick(duration(e, e.attrs.get("wcet")), duration(e, e.attrs.get("cost")));
            long jitter = duration(e, e.attrs.get("jitter"));
            for (ManifestParser.Element c : e.children) {
                switch (c.name) {
                    case "release" -> {
                        cost = pick(cost, duration(c, c.attrs.get("wcet")));
                        jitter = pick(jitter, duration(c, c.attrs.get("jitter")));
                    }
                    case "time" -> {
                        cost = pick(cost, timeChild(c, "cost"));
                        jitter = pick(jitter, timeChild(c, "jitter"));
                    }
                    case "uses" -> uses(name, c);
                    case "memSizes", "mem-size" -> d.memSizesLines.put("task:" + name, c.line);
                    default -> { }
                }
            }
            d.tasks.put(name, new Timing(cost, -1, jitter, cpu(e), null, e.line));
        }

        private void uses(String owner, ManifestParser.Element c) throws ManifestException {
            String resource = c.attrs.get("resource");
            if (resource == null || resource.isBlank()) {
                throw new ManifestException(src, c.line, c.name, "missing attribute 'resource'");
            }
            d.sharedUses.add(new SharedUse(owner, resource.trim(), required(c, "critical-section"), c.line));
        }

        private long timeChild(ManifestParser.Element time, String child) throws ManifestException {
            for (ManifestParser.Element c : time.children) {
                if (c.name.equals(child)) {
                    return duration(c, c.text.toString());
                }
            }
            return -1;
        }

        private static long pick(long declared, long other) { return declared >= 0 ? declared : other; }

        private int cpu(ManifestParser.Element e) throws ManifestException {
            return e.attrs.containsKey("cpu") ? integer(e, "cpu") : -1;
        }

        private long required(ManifestParser.Element e, String attr) throws ManifestException {
            long n = duration(e, e.attrs.get(attr));
            if (n <= 0) {
                throw new ManifestException(src, e.line, e.name, "needs " + attr + " greater than 0");
            }
            return n;
        }

        private long duration(ManifestParser.Element e, String text) throws ManifestException {
            if (text == null) {
                return -1;
            }
            long n = Units.parseDurationNanos(text);
            if (n < 0) {
                throw new ManifestException(src, e.line, e.name, "'" + text.trim()
                        + "' is not a duration with a unit (ns, us, ms, s)");
            }
            return n;
        }

        private int integer(ManifestParser.Element e, String attr) throws ManifestException {
            String v = e.attrs.get(attr);
            try {
                int n = Integer.parseInt(v == null ? "" : v.trim());
                if (n < 0) {
                    throw new NumberFormatException();
                }
                return n;
            } catch (NumberFormatException ex) {
                throw new ManifestException(src, e.line, e.name, attr + " '" + v + "' is not a whole number");
            }
        }
    }
}
