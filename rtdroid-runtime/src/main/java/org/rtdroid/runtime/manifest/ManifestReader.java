package org.rtdroid.runtime.manifest;

import static org.rtdroid.runtime.manifest.ManifestParser.MAX_ALARM_CAPACITY;
import static org.rtdroid.runtime.manifest.ManifestParser.MAX_ALARM_POOL_SIZE;
import static org.rtdroid.runtime.manifest.ManifestParser.MAX_APP_NAME_BYTES;
import static org.rtdroid.runtime.manifest.ManifestParser.MAX_BULK_DATA_BYTES;
import static org.rtdroid.runtime.manifest.ManifestParser.MAX_CHANNEL_CAPACITY;
import static org.rtdroid.runtime.manifest.ManifestParser.MAX_CROSS_CONTEXT_PAYLOAD_BYTES;
import static org.rtdroid.runtime.manifest.ManifestParser.MAX_MESSAGE_DATA_BYTES;
import static org.rtdroid.runtime.manifest.ManifestParser.MAX_NAME_BYTES;
import static org.rtdroid.runtime.manifest.ManifestParser.MAX_PRIORITY;
import static org.rtdroid.runtime.manifest.ManifestParser.MAX_SENDER_NAME_BYTES;
import static org.rtdroid.runtime.manifest.ManifestParser.MAX_SENSOR_LISTENERS;
import static org.rtdroid.runtime.manifest.ManifestParser.MAX_SENSOR_QUEUE;
import static org.rtdroid.runtime.manifest.ManifestParser.MIN_PRIORITY;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.rtdroid.runtime.event.HandlerStrategy;
import org.rtdroid.runtime.manifest.TimingDeclarations.AlarmsTiming;
import org.rtdroid.runtime.manifest.TimingDeclarations.ChannelTiming;
import org.rtdroid.runtime.manifest.TimingDeclarations.SensorsTiming;
import org.rtdroid.runtime.manifest.TimingDeclarations.Server;
import org.rtdroid.runtime.manifest.TimingDeclarations.SharedUse;
import org.rtdroid.runtime.manifest.TimingDeclarations.Timing;

/**
 * Reads a canonical manifest tree that {@code manifest.xsd} has accepted into a {@link Manifest}:
 * one reader per element, each reading every attribute of its element once, what the runtime runs
 * and what the static validation models alike ({@link TimingDeclarations}). The schema has settled
 * structure and lexical form; these readers check what a schema cannot: ranges, counts,
 * cross-references, memory totals, channel ends, utilization.
 */
final class ManifestReader {
    private static final Pattern APP_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0," + (MAX_APP_NAME_BYTES - 1) + "}");
    private static final Pattern CHANNEL_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._/-]{0," + (MAX_NAME_BYTES - 1) + "}");
    private static final Pattern CLASS_NAME =
            Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*");
    private static final Pattern SENDER_NAME = Pattern.compile("\\*|[A-Za-z0-9._/$-]{1," + MAX_SENDER_NAME_BYTES + "}");

    private final String src;
    // What the validation reads, filled as the elements are read.
    private final Map<String, Timing> componentTiming = new LinkedHashMap<>();
    private final Map<String, Timing> taskTiming = new LinkedHashMap<>();
    private final Map<String, ChannelTiming> channelTiming = new LinkedHashMap<>();
    private final List<SharedUse> sharedUses = new ArrayList<>();
    private final Map<String, Integer> memSizesLines = new LinkedHashMap<>();
    private AlarmsTiming alarmsTiming;
    private SensorsTiming sensorsTiming;

    private ManifestReader(String src) { this.src = src; }

    static Manifest read(String src, Element root) throws ManifestException {
        return new ManifestReader(src).manifest(root);
    }

    private ManifestException err(Element e, String problem) {
        return new ManifestException(src, e.line, e.column, e.name, problem);
    }

    // ---- <manifest> and <application> ---------------------------------------------------------

    private Manifest manifest(Element root) throws ManifestException {
        Element app = null;
        for (Element c : root.children) {
            if (c.name.equals("application")) {
                if (app != null) {
                    throw err(c, "only one <application> is allowed");
                }
                app = c;
            }
        }
        if (app == null) {
            throw err(root, "missing <application>");
        }
        Manifest m = application(app, integer(root, "versionCode", 0, 1, Integer.MAX_VALUE));
        double u = m.utilization();
        if (u > 1.0) {
            throw err(app, String.format(Locale.ROOT, "not schedulable: utilization sum(wcet/period) = %.3f exceeds 1.0", u));
        }
        return m;
    }

    private Manifest application(Element app, int versionCode) throws ManifestException {
        String appName = required(app, "name");
        if (!APP_NAME.matcher(appName).matches()) {
            throw err(app, "application name '" + appName + "' must be 1-" + MAX_APP_NAME_BYTES
                    + " characters of [A-Za-z0-9._-], the first a letter or a digit");
        }
        List<ComponentDecl> components = new ArrayList<>();
        Map<ComponentDecl, Element> componentElements = new LinkedHashMap<>();
        Map<ChannelDecl, Element> channelElements = new LinkedHashMap<>();
        AlarmsDecl alarms = null;
        Element alarmsElement = null;
        SensorsDecl sensors = null;
        for (Element c : app.children) {
            switch (c.name) {
                case "service", "receiver" -> {
                    ComponentDecl d = component(c, c.name.equals("service") ? ComponentKind.SERVICE : ComponentKind.RECEIVER);
                    components.add(d);
                    componentElements.put(d, c);
                }
                case "channel" -> channelElements.put(channel(c), c);
                case "alarms" -> {
                    if (alarms != null) {
                        throw err(c, "only one <alarms> per application");
                    }
                    alarms = alarms(c);
                    alarmsElement = c;
                }
                case "sensors" -> {
                    if (sensors != null) {
                        throw err(c, "only one <sensors> per application");
                    }
                    sensors = sensors(c);
                }
                default -> { }  // Android's own elements: the schema accepted them, the RT side ignores them
            }
        }
        if (components.isEmpty()) {
            throw err(app, "the application declares no <service> or <receiver>");
        }
        Set<String> seen = new HashSet<>();
        for (Map.Entry<ComponentDecl, Element> e : componentElements.entrySet()) {
            if (!seen.add(e.getKey().className())) {
                throw err(e.getValue(), "component '" + e.getKey().className() + "' is declared twice");
            }
        }
        Set<String> taskNames = new HashSet<>();
        for (ComponentDecl c : components) {
            for (PeriodicTaskDecl t : c.tasks()) {
                if (!taskNames.add(t.name())) {
                    throw new ManifestException(src, t.line(), "periodic-task",
                            "periodic task name '" + t.name() + "' is used twice in this application");
                }
            }
        }
        seen.clear();
        for (Map.Entry<ChannelDecl, Element> e : channelElements.entrySet()) {
            if (!seen.add(e.getKey().name())) {
                throw err(e.getValue(), "channel '" + e.getKey().name() + "' is declared twice");
            }
        }
        // Every intent-filter action names a declared channel.
        for (ComponentDecl c : components) {
            for (IntentFilterDecl f : c.intentFilters()) {
                for (String ch : f.channels()) {
                    if (!seen.contains(ch)) {
                        throw new ManifestException(src, f.line(), "intent-filter",
                                "action '" + ch + "' of " + c.simpleName() + " names no declared <channel>");
                    }
                }
            }
        }
        List<ChannelDecl> channels = new ArrayList<>();
        for (Map.Entry<ChannelDecl, Element> e : channelElements.entrySet()) {
            channels.add(checkChannelEnds(e.getKey(), e.getValue(), components));
        }
        if (alarms != null && components.stream().noneMatch(ComponentDecl::canBeAlarmTarget)) {
            throw err(alarmsElement, "<alarms> needs a <receiver> that subscribes to no channel to deliver"
                    + " alarms to (a receiver fed by channels is served by its own thread)");
        }
        TimingDeclarations timing = new TimingDeclarations(Collections.unmodifiableMap(componentTiming),
                Collections.unmodifiableMap(taskTiming), Collections.unmodifiableMap(channelTiming),
                List.copyOf(sharedUses), Collections.unmodifiableMap(memSizesLines), alarmsTiming, sensorsTiming);
        return new Manifest(src, appName, versionCode, List.copyOf(components), List.copyOf(channels), alarms, sensors,
                timing);
    }

    // ---- <service>, <receiver> and what they hold ---------------------------------------------

    private ComponentDecl component(Element e, ComponentKind kind) throws ManifestException {
        String cls = required(e, "name");
        if (!CLASS_NAME.matcher(cls).matches()) {
            throw err(e, "name '" + cls + "' is not a Java class name");
        }
        int priority = integer(e, "priority", 0, MIN_PRIORITY, MAX_PRIORITY);
        FailurePolicy policy = "continue".equals(token(e, "on-failure")) ? FailurePolicy.CONTINUE : FailurePolicy.STOP;
        Element memEl = null;
        long start = 0;
        Server server = null;
        List<PeriodicTaskDecl> tasks = new ArrayList<>();
        List<IntentFilterDecl> filters = new ArrayList<>();
        List<JobHandlerDecl> handlers = new ArrayList<>();
        Element reflectionEl = null;
        for (Element c : e.children) {
            switch (c.name) {
                case "reflection" -> {
                    if (reflectionEl != null) {
                        throw err(c, "only one <reflection> per service");
                    }
                    reflectionEl = c;
                }
                case "deadline-miss-handler", "cost-overrun-handler" -> handlers.add(jobHandler(c, handlers));
                case "memSizes" -> {
                    if (memEl != null) {
                        throw err(c, "only one <memSizes> per component");
                    }
                    memEl = c;
                    memSizesLines.put(cls, c.line);
                }
                case "release" -> start = duration(c, "start", 0);
                case "periodic-task" -> tasks.add(task(c, priority));
                case "intent-filter" -> filters.add(intentFilter(c));
                case "server" -> server = server(c);
                case "uses" -> uses(cls, c);
                default -> { }  // <meta-data>: Android's
            }
        }
        if (memEl == null) {
            throw err(e, "missing <memSizes total persistent release>");
        }
        long total = size(memEl, "total", -1);
        long persistent = size(memEl, "persistent", -1);
        long release = size(memEl, "release", -1);
        long immortal = size(memEl, "immortal", 0);
        if (persistent == 0 || release == 0) {
            throw err(memEl, "persistent and release must be greater than 0");
        }
        long children = 0;
        for (PeriodicTaskDecl t : tasks) {
            children += t.releaseBytes();
        }
        if (total != persistent + release + immortal + children) {
            throw err(memEl, "total " + total + " B of " + cls + " must equal persistent " + persistent
                    + " + release " + release + (immortal > 0 ? " + immortal " + immortal : "")
                    + " + periodic-task releases " + children + " = "
                    + (persistent + release + immortal + children) + " B");
        }
        componentTiming.put(cls, new Timing(duration(e, "cost", -1), duration(e, "min-interarrival", -1),
                duration(e, "jitter", -1), integer(e, "cpu", -1, 0, Integer.MAX_VALUE), server, e.line));
        ReflectionDecl reflection = reflectionEl == null ? null : reflection(reflectionEl, priority, tasks);
        return new ComponentDecl(kind, cls, priority, new MemSizes(total, persistent, release, immortal), start, policy,
                List.copyOf(tasks), List.copyOf(filters), e.line, reflection, List.copyOf(handlers));
    }

    private PeriodicTaskDecl task(Element e, int parentPriority) throws ManifestException {
        String name = required(e, "name");
        if (!CHANNEL_NAME.matcher(name).matches()) {
            throw err(e, "task name '" + name + "' must be 1-" + MAX_NAME_BYTES + " characters of [A-Za-z0-9._/-]");
        }
        int priority = parentPriority;
        long releaseBytes = -1;
        long start = 0;
        long period = -1;
        long deadline = -1;
        long wcet = duration(e, "wcet", -1);
        Element rel = null;
        List<JobHandlerDecl> handlers = new ArrayList<>();
        for (Element c : e.children) {
            switch (c.name) {
                case "priority" -> priority = integer(c, "priority", parentPriority, MIN_PRIORITY, MAX_PRIORITY);
                case "deadline-miss-handler", "cost-overrun-handler" -> handlers.add(jobHandler(c, handlers));
                case "memSizes" -> {
                    releaseBytes = size(c, "release", -1);
                    memSizesLines.put("task:" + name, c.line);
                }
                case "release" -> {
                    rel = c;
                    start = duration(c, "start", 0);
                    period = duration(c, "periodic", -1);
                    deadline = duration(c, "deadline", -1);
                }
                case "uses" -> uses(name, c);
                default -> throw err(c, "unexpected element inside <periodic-task>");
            }
        }
        if (releaseBytes <= 0) {
            throw err(e, "periodic task '" + name + "' needs <memSizes release> greater than 0");
        }
        if (rel == null || period <= 0) {
            throw err(rel == null ? e : rel, "periodic task '" + name + "' needs <release periodic> greater than 0");
        }
        if (deadline < 0) {
            deadline = period;
        }
        if (deadline == 0 || deadline > period) {
            throw err(rel, "deadline of '" + name + "' must be in (0, period]");
        }
        if (wcet > deadline) {
            throw err(e, "wcet of '" + name + "' exceeds its deadline");
        }
        if (wcet <= 0 && JobHandlerDecl.find(handlers, JobHandlerDecl.Kind.COST_OVERRUN) != null) {
            throw err(e, "periodic task '" + name + "' has a <cost-overrun-handler> but no wcet to overrun");
        }
        taskTiming.put(name, new Timing(wcet, -1, duration(e, "jitter", -1), integer(e, "cpu", -1, 0, Integer.MAX_VALUE),
                null, e.line));
        return new PeriodicTaskDecl(name, priority, releaseBytes, start, period, deadline, Math.max(0, wcet), e.line,
                List.copyOf(handlers));
    }

    /** {@code <deadline-miss-handler priority cost/>} or {@code <cost-overrun-handler priority cost/>}. */
    private JobHandlerDecl jobHandler(Element e, List<JobHandlerDecl> earlier) throws ManifestException {
        JobHandlerDecl.Kind kind = e.name.equals("deadline-miss-handler")
                ? JobHandlerDecl.Kind.DEADLINE_MISS : JobHandlerDecl.Kind.COST_OVERRUN;
        if (JobHandlerDecl.find(earlier, kind) != null) {
            throw err(e, "only one <" + e.name + "> per task or component");
        }
        int priority = integer(e, "priority", 0, MIN_PRIORITY, MAX_PRIORITY);
        long cost = duration(e, "cost", -1);
        if (cost <= 0) {
            throw err(e, "<" + e.name + "> needs a cost greater than 0 (the handler's WCET, for validation)");
        }
        return new JobHandlerDecl(kind, priority, cost, e.line);
    }

    /**
     * {@code <reflection engine-priority budget period future past/>}: the engine's priority must
     * be above the service's and each of its tasks' (its actions must not be preempted by the
     * component's other work on its CPU). With a {@code wake-guard} (at most
     * {@link ReflectionDecl#MAX_WAKE_GUARD_NANOS}), {@code wakes} says how many of its spins a period
     * holds at most, and the budget plus those spins must fit in the period.
     */
    private ReflectionDecl reflection(Element e, int componentPriority, List<PeriodicTaskDecl> tasks)
            throws ManifestException {
        int priority = integer(e, "engine-priority", 0, MIN_PRIORITY, MAX_PRIORITY);
        int above = componentPriority;
        for (PeriodicTaskDecl t : tasks) {
            above = Math.max(above, t.priority());
        }
        if (priority <= above) {
            throw err(e, "engine-priority " + priority + " must be above the service's other work (" + above + ")");
        }
        long budget = positiveDuration(e, "budget");
        long period = positiveDuration(e, "period");
        if (budget > period) {
            throw err(e, "<reflection> needs its budget at most the period (the engine's CPU time in any window of one period)");
        }
        int future = integer(e, "future", 16, 1, ReflectionDecl.MAX_FUTURE);
        int past = integer(e, "past", 256, 1, ReflectionDecl.MAX_PAST);
        long guard = duration(e, "wake-guard", 0);
        if (guard > ReflectionDecl.MAX_WAKE_GUARD_NANOS) {
            throw err(e, "wake-guard " + millis(guard) + " is outside 0.."
                    + millis(ReflectionDecl.MAX_WAKE_GUARD_NANOS) + " (the engine spins up to it per action it wakes for)");
        }
        int wakes = integer(e, "wakes", 0, 0, ReflectionDecl.MAX_WAKES);
        if (guard > 0 && wakes == 0) {
            throw err(e, "<reflection wake-guard> needs wakes: the most actions the engine wakes for in one period"
                    + " (each costs up to the guard in spin, counted in the engine's CPU time)");
        }
        if (guard == 0 && wakes > 0) {
            throw err(e, "<reflection wakes> only counts a wake-guard's spins: declare wake-guard or drop wakes");
        }
        ReflectionDecl r = new ReflectionDecl(priority, budget, period, future, past, guard, wakes, e.line);
        if (r.engineCostNanos() > period) {
            throw err(e, "<reflection> budget " + millis(budget) + " + wakes " + wakes + " x wake-guard "
                    + millis(guard) + " = " + millis(r.engineCostNanos()) + " exceeds the period "
                    + millis(period));
        }
        return r;
    }

    private IntentFilterDecl intentFilter(Element e) throws ManifestException {
        IntentFilterDecl.Role role = "publisher".equals(token(e, "role")) ? IntentFilterDecl.Role.PUBLISHER
                : IntentFilterDecl.Role.SUBSCRIBER;
        int count = integer(e, "count", 1, 1, MAX_CHANNEL_CAPACITY);
        List<String> actions = new ArrayList<>();
        for (Element c : e.children) {
            actions.add(required(c, "name"));
        }
        return new IntentFilterDecl(role, count, List.copyOf(actions), e.line);
    }

    /** {@code <server budget period priority/>}: aperiodic work through a server (validation only). */
    private Server server(Element c) throws ManifestException {
        long budget = positiveDuration(c, "budget");
        long period = positiveDuration(c, "period");
        int priority = integer(c, "priority", 0, MIN_PRIORITY, MAX_PRIORITY);
        if (budget > period) {
            throw err(c, "budget exceeds the period");
        }
        return new Server(budget, period, priority, c.line);
    }

    /** {@code <uses resource critical-section/>}: {@code owner} locks a shared object (validation only). */
    private void uses(String owner, Element c) throws ManifestException {
        sharedUses.add(new SharedUse(owner, required(c, "resource"), positiveDuration(c, "critical-section"), c.line));
    }

    // ---- <channel> ------------------------------------------------------------------------------

    private ChannelDecl channel(Element e) throws ManifestException {
        String name = required(e, "name");
        if (!CHANNEL_NAME.matcher(name).matches()) {
            throw err(e, "channel name '" + name + "' must be 1-" + MAX_NAME_BYTES + " characters of [A-Za-z0-9._/-]");
        }
        ChannelType type = ChannelType.parse(token(e, "type"));
        ChannelDecl.Order order = ChannelDecl.Order.PRIORITY_INHERITANCE;
        DropPolicy drop = type == ChannelType.BULK ? DropPolicy.OLDEST : DropPolicy.PRIORITY_OLDEST;
        int dataSize = -1;
        String dataType = "app/octet-stream";
        List<String> senders = new ArrayList<>();
        for (Element c : e.children) {
            switch (c.name) {
                case "order" -> order = c.trimmedText().equals("fifo") ? ChannelDecl.Order.FIFO
                        : ChannelDecl.Order.PRIORITY_INHERITANCE;
                case "execution" -> { }  // component-priority, the only one: callbacks run at the receiver's priority
                case "drop" -> drop = DropPolicy.parse(c.trimmedText());
                case "data" -> {
                    long sz = size(c, "size", -1);
                    if (sz <= 0) {
                        throw err(c, "data needs a size greater than 0");
                    }
                    long max = type == ChannelType.BULK ? MAX_BULK_DATA_BYTES
                            : type == ChannelType.CROSS_CONTEXT ? MAX_CROSS_CONTEXT_PAYLOAD_BYTES
                            : MAX_MESSAGE_DATA_BYTES;
                    if (sz > max) {
                        throw err(c, "data size " + sz + " B exceeds the " + max + " B bound of a "
                                + type.manifestName() + " channel"
                                + (type == ChannelType.CROSS_CONTEXT ? " (the cross-context payload)" : ""));
                    }
                    dataSize = (int) sz;
                    dataType = c.attrs.getOrDefault("type", dataType);
                }
                case "allow" -> {
                    if (type != ChannelType.CROSS_CONTEXT) {
                        throw err(c, "<allow sender> is only meaningful on a cross-context channel");
                    }
                    String s = required(c, "sender");
                    if (!SENDER_NAME.matcher(s).matches()) {
                        throw err(c, "sender '" + s + "' must be '*' or 1-" + MAX_SENDER_NAME_BYTES + " characters of [A-Za-z0-9._/$-]");
                    }
                    senders.add(s);
                }
                default -> throw err(c, "unexpected element inside <channel>");
            }
        }
        if (dataSize < 0) {
            throw err(e, "channel '" + name + "' needs <data size>");
        }
        ChannelDecl.Direction dir = null;
        if (type == ChannelType.CROSS_CONTEXT) {
            dir = switch (required(e, "direction")) {
                case "in" -> ChannelDecl.Direction.IN;
                case "out" -> ChannelDecl.Direction.OUT;
                default -> ChannelDecl.Direction.BOTH;
            };
            if (dir.inbound() && senders.isEmpty()) {
                throw err(e, "inbound cross-context channel '" + name
                        + "' must list the Android senders allowed (<allow sender=\"pkg\"/> or \"*\")");
            }
        } else if (e.attrs.containsKey("direction")) {
            throw err(e, "direction is only meaningful on a cross-context channel");
        }
        int capacity = integer(e, "capacity", 0, 1, MAX_CHANNEL_CAPACITY);
        channelTiming.put(name, new ChannelTiming(duration(e, "min-interarrival", -1), duration(e, "critical-section", -1),
                e.line));
        return new ChannelDecl(name, type, order, "component-priority", drop, dataSize, dataType, capacity, dir,
                List.copyOf(senders), e.line);
    }

    /** Checks publishers/subscribers against the channel type; fills the default capacity. */
    private ChannelDecl checkChannelEnds(ChannelDecl ch, Element e, List<ComponentDecl> components)
            throws ManifestException {
        int publishers = 0;
        int subscribers = 0;
        int publishedPerRelease = 0;
        for (ComponentDecl c : components) {
            if (ch.type() == ChannelType.BULK && c.kind() == ComponentKind.RECEIVER && c.subscribesTo(ch.name())) {
                throw err(e, "rt-bulk channel '" + ch.name() + "' is received by a <service> (its periodic task or"
                        + " handler takes the transfer scopes), not by receiver " + c.simpleName());
            }
            int p = c.count(IntentFilterDecl.Role.PUBLISHER, ch.name());
            int s = c.count(IntentFilterDecl.Role.SUBSCRIBER, ch.name());
            if (p > 0) {
                publishers++;
                publishedPerRelease += p;
            }
            if (s > 0) {
                subscribers++;
            }
        }
        String n = "channel '" + ch.name() + "'";
        switch (ch.type()) {
            case MESSAGE -> {
                if (subscribers != 1) {
                    throw err(e, n + " (rt-msg) needs exactly one subscriber, has " + subscribers);
                }
                if (publishers == 0) {
                    throw err(e, n + " has no publisher");
                }
            }
            case BROADCAST -> {
                if (subscribers == 0 || publishers == 0) {
                    throw err(e, n + " (rt-broadcast) needs at least one publisher and one subscriber");
                }
            }
            case BULK -> {
                if (subscribers != 1 || publishers != 1) {
                    throw err(e, n + " (rt-bulk) is one-to-one: needs exactly one publisher and one subscriber,"
                            + " has " + publishers + " and " + subscribers);
                }
            }
            case CROSS_CONTEXT -> {
                if (ch.direction().inbound() && subscribers != 1) {
                    throw err(e, n + " receives from the Android cell: needs exactly one subscriber, has "
                            + subscribers);
                }
                if (!ch.direction().inbound() && subscribers > 0) {
                    throw err(e, n + " is direction 'out': no RT component may subscribe to it");
                }
                if (ch.direction().outbound() && publishers == 0) {
                    throw err(e, n + " sends to the Android cell: needs at least one publisher");
                }
                if (!ch.direction().outbound() && publishers > 0) {
                    throw err(e, n + " is direction 'in': no RT component may publish on it");
                }
            }
        }
        int capacity = ch.capacity();
        if (capacity == 0) {
            capacity = Math.max(1, publishedPerRelease) * 2;
            if (ch.type() == ChannelType.CROSS_CONTEXT) {
                capacity = Math.max(capacity, 8);
            }
        } else if (capacity < publishedPerRelease) {
            // Channel overflow check (dissertation 4.3): one release must never overflow the channel.
            throw err(e, n + " capacity " + capacity + " is smaller than the " + publishedPerRelease
                    + " messages its publishers declare per release");
        }
        return new ChannelDecl(ch.name(), ch.type(), ch.order(), ch.execution(), ch.drop(), ch.dataSizeBytes(),
                ch.dataType(), capacity, ch.direction(), ch.allowedSenders(), ch.line());
    }

    // ---- <alarms> and <sensors> -----------------------------------------------------------------

    private AlarmsDecl alarms(Element e) throws ManifestException {
        int capacity = integer(e, "capacity", -1, 1, MAX_ALARM_CAPACITY);
        HandlerStrategy strategy = HandlerStrategy.fromManifest(token(e, "strategy"));
        AlarmsDecl d = new AlarmsDecl(capacity, strategy, poolSize(e, strategy, "receiver"), e.line);
        alarmsTiming = new AlarmsTiming(duration(e, "min-interarrival", -1), duration(e, "fire-cost", -1), e.line);
        return d;
    }

    private SensorsDecl sensors(Element e) throws ManifestException {
        int listeners = integer(e, "listeners", -1, 1, MAX_SENSOR_LISTENERS);
        int queue = integer(e, "queue", -1, 1, MAX_SENSOR_QUEUE);
        HandlerStrategy strategy = HandlerStrategy.fromManifest(token(e, "strategy"));
        SensorsDecl d = new SensorsDecl(listeners, queue, strategy, poolSize(e, strategy, "listener priority"), e.line);
        sensorsTiming = new SensorsTiming(duration(e, "min-interarrival", -1), duration(e, "frame-cost", -1),
                duration(e, "processing-cost", -1), sensorTypes(e), e.line);
        return d;
    }

    /** pool-size: required with 'pooled', refused with 'bound'; 0 for bound. */
    private int poolSize(Element e, HandlerStrategy strategy, String boundUnit) throws ManifestException {
        if (strategy == HandlerStrategy.POOLED) {
            int poolSize = integer(e, "pool-size", -1, 1, MAX_ALARM_POOL_SIZE);
            if (poolSize < 0) {
                throw err(e, "strategy 'pooled' needs pool-size (the pool's threads, 1.." + MAX_ALARM_POOL_SIZE + ")");
            }
            return poolSize;
        }
        if (e.attrs.containsKey("pool-size")) {
            throw err(e, "pool-size is only meaningful with strategy 'pooled' (bound gives each " + boundUnit + " its own thread)");
        }
        return 0;
    }

    private List<String> sensorTypes(Element e) throws ManifestException {
        String text = e.attrs.get("types");
        if (text == null) {
            return TimingDeclarations.SENSOR_TYPES;
        }
        List<String> types = new ArrayList<>();
        for (String t : text.trim().split("\\s+")) {
            if (!TimingDeclarations.SENSOR_TYPES.contains(t)) {
                throw err(e, "types: '" + t + "' is not a sensor type (expected "
                        + String.join(", ", TimingDeclarations.SENSOR_TYPES) + ", space-separated)");
            }
            if (types.contains(t)) {
                throw err(e, "types: '" + t + "' is named twice");
            }
            types.add(t);
        }
        return List.copyOf(types);
    }

    // ---- values: the schema has checked their form; these read them and check their range ----

    private String required(Element e, String attr) throws ManifestException {
        String v = e.attrs.get(attr);
        if (v == null || v.isBlank()) {
            throw err(e, "missing attribute '" + attr + "'");
        }
        return v.trim();
    }

    /** An enumerated attribute (the schema's tokens: surrounding space is not part of the value). */
    private static String token(Element e, String attr) {
        String v = e.attrs.get(attr);
        return v == null ? null : v.trim();
    }

    /** A number by the one strict rule ({@link Units#parseNumber}), within {@code min..max}. */
    private int integer(Element e, String attr, int dflt, int min, int max) throws ManifestException {
        String v = e.attrs.get(attr);
        if (v == null) {
            return dflt;
        }
        long n = Units.parseNumber(v);
        if (n == -1) {
            throw valueError(e, attr, "is not an integer (digits only)");
        }
        if (n == -2 || n > Integer.MAX_VALUE) {
            throw valueError(e, attr, "is not an integer in " + min + ".." + max);
        }
        if (n < min || n > max) {
            Element at = e.origins.getOrDefault(attr, e);
            throw err(at, (at == e ? attr + " " : "") + n + " is outside " + min + ".." + max);
        }
        return (int) n;
    }

    private long size(Element e, String attr, long dflt) throws ManifestException {
        return withUnit(e, attr, dflt, Units::parseSizeBytes, "is not a size (e.g. 256B, 64K, 3M) of at most 2^63-1 bytes");
    }

    private long duration(Element e, String attr, long dflt) throws ManifestException {
        return withUnit(e, attr, dflt, Units::parseDurationNanos,
                "is not a duration with a unit (ns, us, ms, s) of at most 2^63-1 ns");
    }

    private long withUnit(Element e, String attr, long dflt, java.util.function.ToLongFunction<String> parse, String what)
            throws ManifestException {
        String v = e.attrs.get(attr);
        if (v == null) {
            return dflt;
        }
        long n = parse.applyAsLong(v);
        if (n < 0) {
            throw valueError(e, attr, what);
        }
        return n;
    }

    private long positiveDuration(Element e, String attr) throws ManifestException {
        long n = duration(e, attr, -1);
        if (n <= 0) {
            throw err(e, "needs " + attr + " greater than 0");
        }
        return n;
    }

    /** {@code nanos} in milliseconds, exactly (12.2 ms), for errors that add durations up. */
    private static String millis(long nanos) {
        return java.math.BigDecimal.valueOf(nanos, 6).stripTrailingZeros().toPlainString() + " ms";
    }

    /** The value of {@code attr} is wrong: named where the author wrote it (a chapter 5 element's text, or the attribute). */
    private ManifestException valueError(Element e, String attr, String what) {
        Element origin = e.origins.get(attr);
        String value = "'" + e.attrs.get(attr) + "' " + what;
        return origin != null ? err(origin, value) : err(e, attr + " " + value);
    }
}
