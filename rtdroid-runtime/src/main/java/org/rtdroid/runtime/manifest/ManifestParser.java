package org.rtdroid.runtime.manifest;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import javax.xml.XMLConstants;
import javax.xml.parsers.SAXParser;
import javax.xml.parsers.SAXParserFactory;
import org.rtdroid.runtime.event.HandlerStrategy;
import org.rtdroid.xcc.XccBounds;
import org.xml.sax.Attributes;
import org.xml.sax.Locator;
import org.xml.sax.SAXParseException;
import org.xml.sax.helpers.DefaultHandler;

/**
 * Reads an extended RTDroid manifest with the JDK's SAX parser (no DTDs, no external entities: the
 * manifest comes from outside the cell's trust boundary) and validates it. Every error names the
 * file, the line, the element and the problem.
 *
 * <pre>{@code
 * <manifest versionCode="3">
 *   <application name="cochlear">
 *     <service name="pkg.ProcessingService" priority="89" on-failure="stop">
 *       <memSizes total="3M" persistent="1M" release="1M"/>   <!-- optional immortal="64K", counted in total -->
 *       <release start="0ms"/>
 *       <periodic-task name="processingTask" wcet="1ms">
 *         <priority priority="89"/>
 *         <memSizes release="1M"/>
 *         <release start="0ms" periodic="8ms" deadline="8ms"/>
 *       </periodic-task>
 *       <intent-filter role="subscriber" count="1"><action name="cochlear.audio"/></intent-filter>
 *     </service>
 *     <channel name="cochlear.audio" type="rt-bulk" capacity="4">
 *       <order>priority-inheritance</order><execution>component-priority</execution>
 *       <drop>oldest</drop><data size="512B" type="audio/pcm-float"/>
 *     </channel>
 *     <channel name="cochlear.config" type="cross-context" direction="in" capacity="4">
 *       <data size="8B"/><allow sender="org.rtdroid.cochlear.ui"/>
 *     </channel>
 *     <alarms capacity="8" strategy="pooled" pool-size="2"/>
 *     <sensors listeners="4" queue="16" strategy="bound"/>
 *   </application>
 * </manifest>
 * }</pre>
 */
public final class ManifestParser {
    /** Largest manifest accepted (the RT bundle bounds manifest.xml to 64 KiB). */
    public static final int MAX_MANIFEST_BYTES = 64 * 1024;
    // Names and cross-context payloads travel in frames: their bounds are the wire's (XccBounds, generated from bridge/proto/xcc.options).
    public static final int MAX_CROSS_CONTEXT_PAYLOAD_BYTES = XccBounds.MAX_INTENT_PAYLOAD_BYTES;
    /** Channel and task names (a channel name travels in Intent.channel). */
    public static final int MAX_NAME_BYTES = XccBounds.MAX_INTENT_CHANNEL_BYTES;
    /** Application names (an application is deployed as a bundle of this name: DeployChunk.bundle). */
    public static final int MAX_APP_NAME_BYTES = XccBounds.MAX_DEPLOY_CHUNK_BUNDLE_BYTES;
    /** An allowed sender (compared with Intent.sender). */
    public static final int MAX_SENDER_NAME_BYTES = XccBounds.MAX_INTENT_SENDER_BYTES;
    public static final int MIN_PRIORITY = 1;
    public static final int MAX_PRIORITY = 99;
    public static final int MAX_CHANNEL_CAPACITY = 4096;
    public static final int MAX_MESSAGE_DATA_BYTES = 64 * 1024;
    public static final int MAX_BULK_DATA_BYTES = 16 * 1024 * 1024;
    /** Alarms (pending intents) one application may have at once. */
    public static final int MAX_ALARM_CAPACITY = 4096;
    /** Threads of a pooled alarm dispatcher. */
    public static final int MAX_ALARM_POOL_SIZE = 64;
    /** Listeners one sensor may have at once. */
    public static final int MAX_SENSOR_LISTENERS = 64;
    /** Depth of a sensor queue (raw frames, events per listener lane). */
    public static final int MAX_SENSOR_QUEUE = 4096;

    private static final Pattern APP_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0," + (MAX_APP_NAME_BYTES - 1) + "}");
    private static final Pattern CHANNEL_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._/-]{0," + (MAX_NAME_BYTES - 1) + "}");
    private static final Pattern CLASS_NAME =
            Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*");
    private static final Pattern SENDER_NAME = Pattern.compile("\\*|[A-Za-z0-9._/$-]{1," + MAX_SENDER_NAME_BYTES + "}");

    private ManifestParser() {}

    /** Parses and validates a manifest read from {@code in}; {@code sourceName} names it in errors. */
    public static Manifest parse(String sourceName, InputStream in) throws ManifestException {
        byte[] bytes;
        try {
            bytes = in.readNBytes(MAX_MANIFEST_BYTES + 1);
        } catch (IOException e) {
            throw new ManifestException(sourceName, 0, "manifest", "cannot read: " + e.getMessage(), e);
        }
        if (bytes.length > MAX_MANIFEST_BYTES) {
            throw new ManifestException(sourceName, 0, "manifest", "larger than " + MAX_MANIFEST_BYTES + " bytes");
        }
        Element root = Chapter5Vocabulary.normalize(sourceName, readTree(sourceName, bytes));
        return new ManifestParser.Reader(sourceName).read(root);
    }

    // ---- a tiny element tree with line numbers --------------------------------------------

    static final class Element {
        final String name;
        final Map<String, String> attrs = new LinkedHashMap<>();
        final List<Element> children = new ArrayList<>();
        final StringBuilder text = new StringBuilder();
        final int line;

        Element(String name, int line) {
            this.name = name;
            this.line = line;
        }
    }

    static Element readTree(String sourceName, byte[] bytes) throws ManifestException {
        try {
            SAXParserFactory f = SAXParserFactory.newInstance();
            f.setNamespaceAware(false);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            f.setFeature("http://xml.org/sax/features/external-general-entities", false);
            f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
            SAXParser p = f.newSAXParser();
            List<Element> stack = new ArrayList<>();
            Element[] root = new Element[1];
            p.parse(new java.io.ByteArrayInputStream(bytes), new DefaultHandler() {
                Locator locator;

                @Override
                public void setDocumentLocator(Locator l) { locator = l; }

                @Override
                public void startElement(String uri, String local, String qName, Attributes a) {
                    Element e = new Element(qName, locator == null ? 0 : locator.getLineNumber());
                    for (int i = 0; i < a.getLength(); i++) {
                        // Accept android:name style prefixes by dropping the prefix.
                        String n = a.getQName(i);
                        int colon = n.indexOf(':');
                        if (colon >= 0 && !n.startsWith("xmlns")) {
                            n = n.substring(colon + 1);
                        }
                        e.attrs.put(n, a.getValue(i));
                    }
                    if (stack.isEmpty()) {
                        root[0] = e;
                    } else {
                        stack.get(stack.size() - 1).children.add(e);
                    }
                    stack.add(e);
                }

                @Override
                public void endElement(String uri, String local, String qName) {
                    stack.remove(stack.size() - 1);
                }

                @Override
                public void characters(char[] ch, int start, int length) {
                    if (!stack.isEmpty()) {
                        stack.get(stack.size() - 1).text.append(ch, start, length);
                    }
                }
            });
            return root[0];
        } catch (SAXParseException e) {
            throw new ManifestException(sourceName, e.getLineNumber(), "manifest", "not well-formed XML: " + e.getMessage(), e);
        } catch (Exception e) {
            throw new ManifestException(sourceName, 0, "manifest", "cannot parse XML: " + e.getMessage(), e);
        }
    }

    // ---- reading and validating ------------------------------------------------------------

    private static final class Reader {
        private final String src;

        Reader(String src) { this.src = src; }

        private ManifestException err(Element e, String problem) {
            return new ManifestException(src, e.line, e.name, problem);
        }

        Manifest read(Element root) throws ManifestException {
            if (root == null || !root.name.equals("manifest")) {
                throw new ManifestException(src, root == null ? 0 : root.line, root == null ? "manifest" : root.name,
                        "the root element must be <manifest>");
            }
            Element app = null;
            for (Element c : root.children) {
                if (c.name.equals("application")) {
                    if (app != null) {
                        throw err(c, "only one <application> is allowed");
                    }
                    app = c;
                } else if (!c.name.equals("uses-permission") && !c.name.equals("uses-sdk")) {
                    throw err(c, "unexpected element inside <manifest>");
                }
            }
            if (app == null) {
                throw err(root, "missing <application>");
            }
            String appName = required(app, "name");
            if (!APP_NAME.matcher(appName).matches()) {
                throw err(app, "application name '" + appName + "' must be 1-" + MAX_APP_NAME_BYTES + " characters of [A-Za-z0-9._-]");
            }
            List<ComponentDecl> components = new ArrayList<>();
            List<ChannelDecl> channels = new ArrayList<>();
            Map<ChannelDecl, Element> channelElements = new LinkedHashMap<>();
            Map<ComponentDecl, Element> componentElements = new LinkedHashMap<>();
            AlarmsDecl alarms = null;
            Element alarmsElement = null;
            SensorsDecl sensors = null;
            for (Element c : app.children) {
                switch (c.name) {
                    case "service" -> {
                        ComponentDecl d = component(c, ComponentKind.SERVICE);
                        components.add(d);
                        componentElements.put(d, c);
                    }
                    case "receiver" -> {
                        ComponentDecl d = component(c, ComponentKind.RECEIVER);
                        components.add(d);
                        componentElements.put(d, c);
                    }
                    case "channel" -> {
                        ChannelDecl d = channel(c);
                        channels.add(d);
                        channelElements.put(d, c);
                    }
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
                    default -> throw err(c, "unexpected element inside <application>"
                            + " (expected <service>, <receiver>, <channel>, <alarms> or <sensors>)");
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
            List<ChannelDecl> finalChannels = new ArrayList<>();
            for (Map.Entry<ChannelDecl, Element> e : channelElements.entrySet()) {
                finalChannels.add(checkChannelEnds(e.getKey(), e.getValue(), components));
            }
            if (alarms != null && components.stream().noneMatch(ComponentDecl::canBeAlarmTarget)) {
                throw err(alarmsElement, "<alarms> needs a <receiver> that subscribes to no channel to deliver"
                        + " alarms to (a receiver fed by channels is served by its own thread)");
            }
            int versionCode = integer(root, "versionCode", 0, 1, Integer.MAX_VALUE);
            Manifest m = new Manifest(src, appName, versionCode, List.copyOf(components), List.copyOf(finalChannels),
                    alarms, sensors);
            double u = m.utilization();
            if (u > 1.0) {
                throw err(app, String.format(java.util.Locale.ROOT,
                        "not schedulable: utilization sum(wcet/period) = %.3f exceeds 1.0", u));
            }
            return m;
        }

        private ComponentDecl component(Element e, ComponentKind kind) throws ManifestException {
            String cls = required(e, "name");
            if (!CLASS_NAME.matcher(cls).matches()) {
                throw err(e, "name '" + cls + "' is not a Java class name");
            }
            int priority = priority(e, required(e, "priority"));
            FailurePolicy policy = FailurePolicy.STOP;
            String pol = e.attrs.get("on-failure");
            if (pol != null) {
                policy = switch (pol.trim()) {
                    case "stop" -> FailurePolicy.STOP;
                    case "continue" -> FailurePolicy.CONTINUE;
                    default -> throw err(e, "on-failure must be 'stop' or 'continue', not '" + pol + "'");
                };
            }
            Element memEl = null;
            long start = 0;
            List<PeriodicTaskDecl> tasks = new ArrayList<>();
            List<IntentFilterDecl> filters = new ArrayList<>();
            List<JobHandlerDecl> handlers = new ArrayList<>();
            Element reflectionEl = null;
            for (Element c : e.children) {
                switch (c.name) {
                    case "reflection" -> {
                        if (kind != ComponentKind.SERVICE || reflectionEl != null) {
                            throw err(c, kind != ComponentKind.SERVICE ? "only a <service> may be reflective"
                                    : "only one <reflection> per service");
                        }
                        reflectionEl = c;
                    }
                    case "deadline-miss-handler", "cost-overrun-handler" -> handlers.add(jobHandler(c, handlers));
                    case "memSizes" -> {
                        if (memEl != null) {
                            throw err(c, "only one <memSizes> per component");
                        }
                        memEl = c;
                    }
                    case "release" -> {
                        start = duration(c, "start", 0);
                        if (c.attrs.containsKey("periodic")) {
                            throw err(c, "a " + e.name + " itself is not periodic: declare a <periodic-task>");
                        }
                    }
                    case "periodic-task" -> {
                        if (kind != ComponentKind.SERVICE) {
                            throw err(c, "only a <service> may own periodic tasks");
                        }
                        tasks.add(task(c, priority));
                    }
                    case "intent-filter" -> filters.add(intentFilter(c));
                    case "meta-data" -> { }
                    default -> throw err(c, "unexpected element inside <" + e.name + ">");
                }
            }
            if (memEl == null) {
                throw err(e, "missing <memSizes total persistent release>");
            }
            long total = size(memEl, "total", -1);
            long persistent = size(memEl, "persistent", -1);
            long release = size(memEl, "release", -1);
            long immortal = size(memEl, "immortal", 0);
            if (total < 0 || persistent < 0 || release < 0) {
                throw err(memEl, "a component's <memSizes> needs total, persistent and release");
            }
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
            long wcet = e.attrs.containsKey("wcet") ? duration(e, "wcet", 0) : 0;
            Element rel = null;
            List<JobHandlerDecl> handlers = new ArrayList<>();
            for (Element c : e.children) {
                switch (c.name) {
                    case "priority" -> priority = priority(c, required(c, "priority"));
                    case "deadline-miss-handler", "cost-overrun-handler" -> handlers.add(jobHandler(c, handlers));
                    case "memSizes" -> {
                        if (c.attrs.containsKey("persistent") || c.attrs.containsKey("total")) {
                            throw err(c, "a periodic task has only a release scope: declare release only");
                        }
                        releaseBytes = size(c, "release", -1);
                    }
                    case "release" -> {
                        rel = c;
                        start = duration(c, "start", 0);
                        period = duration(c, "periodic", -1);
                        deadline = duration(c, "deadline", -1);
                        if (c.attrs.containsKey("wcet")) {
                            wcet = duration(c, "wcet", 0);
                        }
                    }
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
            return new PeriodicTaskDecl(name, priority, releaseBytes, start, period, deadline, wcet, e.line,
                    List.copyOf(handlers));
        }

        /** {@code <deadline-miss-handler priority cost/>} or {@code <cost-overrun-handler priority cost/>}. */
        private JobHandlerDecl jobHandler(Element e, List<JobHandlerDecl> earlier) throws ManifestException {
            onlyAttributes(e, "priority", "cost");
            JobHandlerDecl.Kind kind = e.name.equals("deadline-miss-handler")
                    ? JobHandlerDecl.Kind.DEADLINE_MISS : JobHandlerDecl.Kind.COST_OVERRUN;
            if (JobHandlerDecl.find(earlier, kind) != null) {
                throw err(e, "only one <" + e.name + "> per task or component");
            }
            int priority = priority(e, required(e, "priority"));
            long cost = duration(e, "cost", -1);
            if (cost <= 0) {
                throw err(e, "<" + e.name + "> needs a cost greater than 0 (the handler's WCET, for validation)");
            }
            return new JobHandlerDecl(kind, priority, cost, e.line);
        }

        /**
         * {@code <reflection engine-priority budget period future past/>}: the engine's priority must
         * be above the service's and each of its tasks' (its actions must not be preempted by the
         * component's other work on its CPU).
         */
        private ReflectionDecl reflection(Element e, int componentPriority, List<PeriodicTaskDecl> tasks)
                throws ManifestException {
            onlyAttributes(e, "engine-priority", "budget", "period", "future", "past");
            int priority = priority(e, required(e, "engine-priority"));
            int above = componentPriority;
            for (PeriodicTaskDecl t : tasks) {
                above = Math.max(above, t.priority());
            }
            if (priority <= above) {
                throw err(e, "engine-priority " + priority + " must be above the service's other work (" + above + ")");
            }
            long budget = duration(e, "budget", -1);
            long period = duration(e, "period", -1);
            if (budget <= 0 || period <= 0 || budget > period) {
                throw err(e, "<reflection> needs budget and period greater than 0, budget at most the period "
                        + "(the engine's CPU time in any window of one period)");
            }
            int future = integer(e, "future", 16, 1, ReflectionDecl.MAX_FUTURE);
            int past = integer(e, "past", 256, 1, ReflectionDecl.MAX_PAST);
            return new ReflectionDecl(priority, budget, period, future, past, e.line);
        }

        private AlarmsDecl alarms(Element e) throws ManifestException {
            // min-interarrival and fire-cost are for static validation (TimingDeclarations)
            onlyAttributes(e, "capacity", "strategy", "pool-size", "min-interarrival", "fire-cost");
            int capacity = integer(e, "capacity", -1, 1, MAX_ALARM_CAPACITY);
            if (capacity < 0) {
                throw err(e, "missing attribute 'capacity'");
            }
            HandlerStrategy strategy = strategy(e);
            return new AlarmsDecl(capacity, strategy, poolSize(e, strategy, "receiver"), e.line);
        }

        private SensorsDecl sensors(Element e) throws ManifestException {
            // min-interarrival, frame-cost, processing-cost and types are for static validation (TimingDeclarations)
            onlyAttributes(e, "listeners", "queue", "strategy", "pool-size", "min-interarrival", "frame-cost",
                    "processing-cost", "types");
            int listeners = integer(e, "listeners", -1, 1, MAX_SENSOR_LISTENERS);
            if (listeners < 0) {
                throw err(e, "missing attribute 'listeners' (listeners one sensor may have at once, 1.." + MAX_SENSOR_LISTENERS + ")");
            }
            int queue = integer(e, "queue", -1, 1, MAX_SENSOR_QUEUE);
            if (queue < 0) {
                throw err(e, "missing attribute 'queue' (depth of every sensor queue, 1.." + MAX_SENSOR_QUEUE + ")");
            }
            HandlerStrategy strategy = strategy(e);
            return new SensorsDecl(listeners, queue, strategy, poolSize(e, strategy, "listener priority"), e.line);
        }

        /** An element of attributes only, from {@code allowed}. */
        private void onlyAttributes(Element e, String... allowed) throws ManifestException {
            List<String> ok = List.of(allowed);
            for (String attr : e.attrs.keySet()) {
                if (!ok.contains(attr)) {
                    throw err(e, "unexpected attribute '" + attr + "' (expected " + String.join(", ", allowed) + ")");
                }
            }
            if (!e.children.isEmpty()) {
                throw err(e.children.get(0), "unexpected element inside <" + e.name + "> (it has attributes only)");
            }
        }

        /** The handler strategy of {@code <alarms>} or {@code <sensors>}. */
        private HandlerStrategy strategy(Element e) throws ManifestException {
            String strategyText = required(e, "strategy");
            HandlerStrategy strategy = HandlerStrategy.fromManifest(strategyText);
            if (strategy == null) {
                throw err(e, "strategy must be 'bound' or 'pooled', not '" + strategyText + "'");
            }
            return strategy;
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

        private IntentFilterDecl intentFilter(Element e) throws ManifestException {
            String roleText = required(e, "role");
            IntentFilterDecl.Role role = switch (roleText.trim()) {
                case "publisher" -> IntentFilterDecl.Role.PUBLISHER;
                case "subscriber" -> IntentFilterDecl.Role.SUBSCRIBER;
                default -> throw err(e, "role must be 'publisher' or 'subscriber', not '" + roleText + "'");
            };
            int count = integer(e, "count", 1, 1, MAX_CHANNEL_CAPACITY);
            List<String> actions = new ArrayList<>();
            for (Element c : e.children) {
                if (!c.name.equals("action")) {
                    throw err(c, "unexpected element inside <intent-filter> (expected <action name>)");
                }
                actions.add(required(c, "name"));
            }
            if (actions.isEmpty()) {
                throw err(e, "an <intent-filter> needs at least one <action name>");
            }
            return new IntentFilterDecl(role, count, List.copyOf(actions), e.line);
        }

        private ChannelDecl channel(Element e) throws ManifestException {
            String name = required(e, "name");
            if (!CHANNEL_NAME.matcher(name).matches()) {
                throw err(e, "channel name '" + name + "' must be 1-" + MAX_NAME_BYTES + " characters of [A-Za-z0-9._/-]");
            }
            String typeText = required(e, "type");
            ChannelType type = ChannelType.parse(typeText);
            if (type == null) {
                throw err(e, "type '" + typeText + "' is not one of rt-msg, rt-broadcast, rt-bulk, cross-context");
            }
            ChannelDecl.Order order = ChannelDecl.Order.PRIORITY_INHERITANCE;
            String execution = "component-priority";
            DropPolicy drop = type == ChannelType.BULK ? DropPolicy.OLDEST : DropPolicy.PRIORITY_OLDEST;
            int dataSize = -1;
            String dataType = "app/octet-stream";
            List<String> senders = new ArrayList<>();
            for (Element c : e.children) {
                String text = c.text.toString().trim();
                switch (c.name) {
                    case "order" -> order = switch (text) {
                        case "priority-inheritance", "priority" -> ChannelDecl.Order.PRIORITY_INHERITANCE;
                        case "fifo" -> ChannelDecl.Order.FIFO;
                        default -> throw err(c, "order must be 'priority-inheritance' or 'fifo', not '" + text + "'");
                    };
                    case "execution" -> {
                        if (!text.equals("component-priority")) {
                            throw err(c, "execution must be 'component-priority' (callbacks run at the"
                                    + " receiving component's priority), not '" + text + "'");
                        }
                    }
                    case "drop" -> {
                        drop = DropPolicy.parse(text);
                        if (drop == null) {
                            throw err(c, "drop must be 'priority&oldest', 'oldest' or 'newest', not '" + text + "'");
                        }
                    }
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
                        if (c.attrs.containsKey("type")) {
                            dataType = c.attrs.get("type");
                        }
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
                String d = required(e, "direction");
                dir = switch (d.trim()) {
                    case "in" -> ChannelDecl.Direction.IN;
                    case "out" -> ChannelDecl.Direction.OUT;
                    case "both" -> ChannelDecl.Direction.BOTH;
                    default -> throw err(e, "direction must be 'in', 'out' or 'both', not '" + d + "'");
                };
                if (dir.inbound() && senders.isEmpty()) {
                    throw err(e, "inbound cross-context channel '" + name
                            + "' must list the Android senders allowed (<allow sender=\"pkg\"/> or \"*\")");
                }
            } else if (e.attrs.containsKey("direction")) {
                throw err(e, "direction is only meaningful on a cross-context channel");
            }
            int capacity = e.attrs.containsKey("capacity") ? integer(e, "capacity", 0, 1, MAX_CHANNEL_CAPACITY) : 0;
            return new ChannelDecl(name, type, order, execution, drop, dataSize, dataType, capacity, dir,
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

        // ---- attribute helpers ----

        private String required(Element e, String attr) throws ManifestException {
            String v = e.attrs.get(attr);
            if (v == null || v.isBlank()) {
                throw err(e, "missing attribute '" + attr + "'");
            }
            return v.trim();
        }

        private int priority(Element e, String text) throws ManifestException {
            try {
                int p = Integer.parseInt(text.trim());
                if (p < MIN_PRIORITY || p > MAX_PRIORITY) {
                    throw err(e, "priority " + p + " is outside " + MIN_PRIORITY + ".." + MAX_PRIORITY);
                }
                return p;
            } catch (NumberFormatException ex) {
                throw err(e, "priority '" + text + "' is not an integer");
            }
        }

        private int integer(Element e, String attr, int dflt, int min, int max) throws ManifestException {
            String v = e.attrs.get(attr);
            if (v == null) {
                return dflt;
            }
            try {
                int n = Integer.parseInt(v.trim());
                if (n < min || n > max) {
                    throw err(e, attr + " " + n + " is outside " + min + ".." + max);
                }
                return n;
            } catch (NumberFormatException ex) {
                throw err(e, attr + " '" + v + "' is not an integer");
            }
        }

        private long size(Element e, String attr, long dflt) throws ManifestException {
            String v = e.attrs.get(attr);
            if (v == null) {
                return dflt;
            }
            long n = Units.parseSizeBytes(v);
            if (n < 0) {
                throw err(e, attr + " '" + v + "' is not a size (e.g. 256B, 64K, 3M)");
            }
            return n;
        }

        private long duration(Element e, String attr, long dflt) throws ManifestException {
            String v = e.attrs.get(attr);
            if (v == null) {
                return dflt;
            }
            long n = Units.parseDurationNanos(v);
            if (n < 0) {
                throw err(e, attr + " '" + v + "' is not a duration with a unit (ns, us, ms, s)");
            }
            return n;
        }
    }
}
