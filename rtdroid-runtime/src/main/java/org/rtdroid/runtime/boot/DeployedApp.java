package org.rtdroid.runtime.boot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.rtdroid.runtime.alarm.AlarmManager;
import org.rtdroid.runtime.channel.BroadcastChannel;
import org.rtdroid.runtime.channel.BulkChannel;
import org.rtdroid.runtime.channel.InboundSource;
import org.rtdroid.runtime.channel.MessageChannel;
import org.rtdroid.runtime.component.AppContext;
import org.rtdroid.runtime.component.ComponentRuntime;
import org.rtdroid.runtime.component.PeriodicTaskRuntime;
import org.rtdroid.runtime.component.RealtimeComponent;
import org.rtdroid.runtime.manifest.AlarmsDecl;
import org.rtdroid.runtime.manifest.ChannelDecl;
import org.rtdroid.runtime.manifest.ComponentDecl;
import org.rtdroid.runtime.manifest.DropPolicy;
import org.rtdroid.runtime.manifest.Manifest;
import org.rtdroid.runtime.manifest.PeriodicTaskDecl;
import org.rtdroid.runtime.validation.SystemModel;
import org.rtdroid.runtime.validation.Task;
import org.rtdroid.runtime.memory.Scope;
import org.rtdroid.runtime.memory.ImmortalScope;
import org.rtdroid.runtime.memory.ScopeKind;
import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.os.RealtimePolicy;
import org.rtdroid.runtime.validation.RuntimeServices;
import org.rtdroid.runtime.sensor.SensorService;
import org.rtdroid.runtime.manifest.SensorsDecl;
import org.rtdroid.runtime.xcc.CrossContextPublisher;
import org.rtdroid.runtime.xcc.CrossContextRouter;

/**
 * One deployed application: everything its manifest declares, pre-allocated at deployment (scopes
 * in one off-heap arena, channels with all their messages, the AlarmManager's slots), and its
 * running components. The AlarmManager's thread runs at the cell's highest priority; it starts
 * once every component has started (no alarm reaches a receiver before its onCreate returned)
 * and stops first at undeployment.
 */
public final class DeployedApp {
    private final Manifest manifest;
    private final CellConfig cell;
    private final CrossContextRouter router;
    private final Consumer<String> log;
    private final Arena arena = Arena.ofShared();
    private final Map<String, MessageChannel> messageChannels = new HashMap<>();
    private final Map<String, BroadcastChannel> broadcastChannels = new HashMap<>();
    private final Map<String, Map<String, InboundSource>> broadcastSubscribers = new HashMap<>();
    private final Map<String, BulkChannel> bulkChannels = new HashMap<>();
    private final Map<String, CrossContextRouter.Entry> crossContext = new LinkedHashMap<>();
    private final List<ComponentRuntime> components = new ArrayList<>();
    private AlarmManager alarms;
    private SensorService sensors;
    /** The threads of the deadline-miss and cost-overrun handlers (one each), or null when none is declared. */
    private org.rtdroid.runtime.event.HandlerDispatcher jobHandlers;
    private final Context context = new Context();
    private volatile long epochNanos;
    private volatile boolean undeployed;
    private final long reservedBytes;
    /** The CPU the cell's partition places each component on (simple name), when partitioned. */
    private final Map<String, CpuSet> cpuOfComponent;
    /** How far ahead of "all started" the periodic tasks' common epoch lies. */
    static final long EPOCH_LEAD_NANOS = 5_000_000L;

    DeployedApp(Manifest manifest, CellConfig cell, CrossContextRouter router, Consumer<String> log,
                Map<String, CpuSet> cpuOfComponent) {
        this.manifest = manifest;
        this.cpuOfComponent = Map.copyOf(cpuOfComponent);
        this.cell = cell;
        this.router = router;
        this.log = log;
        this.reservedBytes = manifest.totalScopeBytes() + manifest.totalChannelBytes();
    }

    public String name() { return manifest.name(); }
    public Manifest manifest() { return manifest; }
    /** Scope and channel bytes this application pre-allocated. */
    public long reservedBytes() { return reservedBytes; }
    public boolean isUndeployed() { return undeployed; }

    /** The component instance the runtime created for {@code className}, or null. */
    public RealtimeComponent component(String className) {
        for (ComponentRuntime c : components) {
            if (c.decl().className().equals(className) || c.decl().simpleName().equals(className)) {
                return c.instance();
            }
        }
        return null;
    }

    /** Runtime view of a component (state, counters, scopes), or null. */
    public ComponentRuntime componentRuntime(String className) {
        for (ComponentRuntime c : components) {
            if (c.decl().className().equals(className) || c.decl().simpleName().equals(className)) {
                return c;
            }
        }
        return null;
    }

    public List<ComponentRuntime> componentRuntimes() { return Collections.unmodifiableList(components); }

    /** The application's AlarmManager, or null if its manifest declares no {@code <alarms>}. */
    public AlarmManager alarmManager() { return alarms; }

    /** The application's sensors, or null if its manifest declares no {@code <sensors>}. */
    public SensorService sensorService() { return sensors; }

    public MessageChannel messageChannel(String name) { return messageChannels.get(name); }
    public BroadcastChannel broadcastChannel(String name) { return broadcastChannels.get(name); }
    public BulkChannel bulkChannel(String name) { return bulkChannels.get(name); }

    /** The runtime's publisher of a cross-context channel this application declares (null if none). */
    public CrossContextPublisher crossContextPublisher(String name) { return crossContext.get(name); }

    /** The inbound queue of a cross-context channel this application declares (null if none). */
    public MessageChannel crossContextInbound(String name) {
        CrossContextRouter.Entry e = crossContext.get(name);
        return e == null ? null : e.inbound();
    }

    /**
     * Sets the cost (WCET) the admission analysis ({@code model}) assumed for each component's
     * callbacks and each periodic task of this application; one the model gives no cost keeps
     * what it has (a task its declared wcet, a component none). Each release or callback that then
     * uses more CPU time is counted as a cost overrun.
     */
    void assumeCosts(SystemModel model) {
        Map<String, Long> costOfKey = new HashMap<>();
        Map<String, Long> deadlineOfKey = new HashMap<>();
        for (Task t : model.tasks()) {
            if (t.app().equals(name()) && t.costNanos() > 0) {
                costOfKey.put(t.key(), t.costNanos());
                deadlineOfKey.put(t.key(), t.deadlineNanos());
            }
        }
        for (ComponentRuntime c : components) {
            String key = Task.key(name(), c.decl().simpleName());
            c.costNanos(costOfKey.getOrDefault(key, c.costNanos()));
            c.deadlineNanos(deadlineOfKey.getOrDefault(key, c.deadlineNanos()));
            for (PeriodicTaskRuntime t : c.tasks()) {
                t.costNanos(costOfKey.getOrDefault(Task.key(name(), t.decl().name()), t.costNanos()));
            }
        }
    }

    /**
     * Every past timeline of this application: each reflective service's engine, each periodic
     * task, each component's callbacks (those that had any).
     */
    public List<TimelineTrack> timelines() {
        List<TimelineTrack> out = new ArrayList<>();
        for (ComponentRuntime c : components) {
            String base = name() + "/" + c.decl().simpleName();
            org.rtdroid.runtime.reflection.ExecutionEngine e = c.engine();
            if (e != null) {
                out.add(new TimelineTrack(base + ".engine", TimelineTrack.ENGINE, e.tid(), c.timeline().past()));
            }
            for (PeriodicTaskRuntime t : c.tasks()) {
                out.add(new TimelineTrack(base + "/" + t.decl().name(), TimelineTrack.TASK, t.tid(), t.jobs().past()));
            }
            if (c.jobs().past().recorded() > 0) {
                out.add(new TimelineTrack(base, TimelineTrack.CALLBACKS, c.tid(), c.jobs().past()));
            }
        }
        return out;
    }

    /** The component and task status lines of this application. */
    public List<ServiceStatus> statuses() {
        List<ServiceStatus> out = new ArrayList<>();
        for (ComponentRuntime c : components) {
            String base = name() + "/" + c.decl().simpleName();
            Throwable failure = c.lastFailure();
            FailureCause cause = failure == null ? null : FailureCause.of(failure, c.failureTask(), c.failureRelease());
            int cpu = c.cpu() == null ? -1 : c.cpu().first();
            out.add(new ServiceStatus(base, c.state().name(), c.callbacks(), 0, c.worstDeliveryNanos(),
                    c.worstResponseNanos(), 0, c.failures(), c.decl().priority(), cause, cpu,
                    new ServiceStatus.Execution(c.worstExecutionNanos(), c.costNanos(), c.costOverruns(), c.lastCostOverrun())));
            org.rtdroid.runtime.reflection.ExecutionEngine e = c.engine();
            if (e != null) {
                // The engine's line: actions run, late ones (ended after their planned end) as misses,
                // clobbered ones as overruns, the latest start after a planned begin as lateness.
                out.add(new ServiceStatus(base + ".engine", e.isRunning() ? c.state().name() : "STOPPED", e.executed(),
                        e.late(), e.worstLatenessNanos(), 0, e.clobbered(), e.failures(),
                        c.decl().reflection().enginePriority(), e.lastFailure() == null ? null
                                : FailureCause.of(e.lastFailure(), "engine", 0), cpu, ServiceStatus.Execution.NONE));
            }
            for (PeriodicTaskRuntime t : c.tasks()) {
                String st = c.state() == org.rtdroid.runtime.component.ComponentState.RUNNING && !t.isRunning()
                        ? "STOPPED" : c.state().name();
                out.add(new ServiceStatus(base + "/" + t.decl().name(), st, t.releases(), t.deadlineMisses(),
                        t.worstLatenessNanos(), t.worstResponseNanos(), t.overruns(), c.failures(), t.decl().priority(),
                        cause, cpu, new ServiceStatus.Execution(t.worstExecutionNanos(), t.costNanos(), t.costOverruns(), t.lastCostOverrun())));
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ deployment

    /** Pre-allocates every scope and channel and instantiates the components (not started yet). */
    void allocate(Map<ComponentDecl, RealtimeComponent> instances) throws DeploymentException {
        for (ChannelDecl ch : manifest.channels()) {
            boolean fifo = ch.order() == ChannelDecl.Order.FIFO;
            switch (ch.type()) {
                case MESSAGE -> messageChannels.put(ch.name(),
                        new MessageChannel(ch.name(), ch.capacity(), ch.dataSizeBytes(), ch.drop(), fifo));
                case BROADCAST -> {
                    List<String> subs = new ArrayList<>();
                    for (ComponentDecl c : manifest.components()) {
                        if (c.subscribesTo(ch.name())) {
                            subs.add(c.className());
                        }
                    }
                    BroadcastChannel bc = new BroadcastChannel(ch.name(), ch.capacity(), ch.dataSizeBytes(), subs.size(),
                            ch.drop(), fifo);
                    broadcastChannels.put(ch.name(), bc);
                    Map<String, InboundSource> views = new HashMap<>();
                    for (int i = 0; i < subs.size(); i++) {
                        views.put(subs.get(i), bc.subscriber(i));
                    }
                    broadcastSubscribers.put(ch.name(), views);
                }
                case BULK -> {
                    MemorySegment region = arena.allocate((long) ch.capacity() * ch.dataSizeBytes(), 64);
                    bulkChannels.put(ch.name(), new BulkChannel(ch.name(), ch.capacity(), ch.dataSizeBytes(), ch.drop(),
                            region));
                }
                case CROSS_CONTEXT -> {
                    MessageChannel inbound = ch.direction().inbound()
                            // The proxy never steals: a full inbound queue refuses the newcomer.
                            ? new MessageChannel(ch.name(), ch.capacity(), ch.dataSizeBytes(), DropPolicy.NEWEST, fifo)
                            : null;
                    try {
                        crossContext.put(ch.name(), router.register(name(), ch, inbound));
                    } catch (IllegalStateException e) {
                        releaseChannels();
                        throw new DeploymentException(e.getMessage().contains("already declared")
                                ? DeploymentException.Reason.DUPLICATE : DeploymentException.Reason.OVER_BUDGET,
                                e.getMessage(), e);
                    }
                }
            }
        }
        for (ComponentDecl d : manifest.components()) {
            String n = d.simpleName();
            Scope persistent = new Scope(n, ScopeKind.PERSISTENT, arena.allocate(d.memSizes().persistentBytes(), 64));
            Scope release = new Scope(n, ScopeKind.RELEASE, arena.allocate(d.memSizes().releaseBytes(), 64));
            ImmortalScope immortal = new ImmortalScope(n, arena.allocate(d.memSizes().immortalBytes(), 64));
            Map<String, Scope> taskScopes = new HashMap<>();
            for (PeriodicTaskDecl t : d.tasks()) {
                taskScopes.put(t.name(), new Scope(n + "/" + t.name(), ScopeKind.RELEASE,
                        arena.allocate(t.releaseBytes(), 64)));
            }
            try {
                components.add(new ComponentRuntime(d, instances.get(d), context, persistent, release, immortal, taskScopes));
            } catch (RuntimeException e) {
                releaseChannels();
                throw new DeploymentException(DeploymentException.Reason.LOAD_FAILED,
                        d.simpleName() + ": " + e.getMessage(), e);
            }
        }
        int handlers = 0;
        for (ComponentDecl d : manifest.components()) {
            handlers += d.handlers().size();
            for (PeriodicTaskDecl t : d.tasks()) {
                handlers += t.handlers().size();
            }
        }
        if (handlers > 0) {
            jobHandlers = org.rtdroid.runtime.event.HandlerDispatcher.create(name() + "/job-handlers",
                    org.rtdroid.runtime.event.HandlerStrategy.BOUND, 0, handlers, context::policyFor);
        }
        AlarmsDecl a = manifest.alarms();
        if (a != null) {
            alarms = new AlarmManager(name(), a.capacity(), a.strategy(), a.poolSize(), cell.maxPriority(),
                    context::policyFor, context.cpuOf(RuntimeServices.ALARM_THREAD), this::cpuOfClass);
            for (ComponentRuntime c : components) {
                if (c.decl().canBeAlarmTarget()) {
                    alarms.declareReceiver(c.decl().className(), c.decl().priority(), c::onAlarm);
                }
            }
        }
    }

    /** Starts every component (highest priority first) and then releases the periodic tasks. */
    void start(long startTimeoutMillis) throws DeploymentException {
        SensorsDecl s = manifest.sensors();
        if (s != null) {
            // Before the components: listeners registered in onCreate set the processing threads' priorities.
            sensors = new SensorService(name(), s.listeners(), s.queueDepth(), s.strategy(), s.poolSize(),
                    cell.maxPriority(), context::policyFor, context::cpuOf);
            try {
                sensors.start();
            } catch (IllegalStateException e) {  // a sensor thread not pinned where the partition placed it
                stopAll();
                throw new DeploymentException(DeploymentException.Reason.START_FAILED, e.getMessage(), e);
            }
        }
        List<ComponentRuntime> order = new ArrayList<>(components);
        order.sort((a, b) -> Integer.compare(b.decl().priority(), a.decl().priority()));
        for (ComponentRuntime c : order) {
            c.start(name() + "/" + c.decl().simpleName());
            Throwable failure;
            try {
                failure = c.awaitStarted(startTimeoutMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failure = e;
            }
            if (failure != null) {
                stopAll();
                throw new DeploymentException(DeploymentException.Reason.START_FAILED,
                        c.decl().simpleName() + " failed to start: " + failure, failure);
            }
        }
        // Wait until every task thread is set up, then give them one epoch a little ahead.
        long deadline = System.nanoTime() + startTimeoutMillis * 1_000_000L;
        for (ComponentRuntime c : components) {
            for (PeriodicTaskRuntime t : c.tasks()) {
                while (!t.isReady() && t.thread() != null && t.thread().isAlive() && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                    java.util.concurrent.locks.LockSupport.parkNanos(100_000);
                }
                if (t.startFailure() != null) {  // not pinned where the partition placed it: not released at all
                    stopAll();
                    throw new DeploymentException(DeploymentException.Reason.START_FAILED,
                            t.decl().name() + " failed to start: " + t.startFailure().getMessage(), t.startFailure());
                }
            }
        }
        epochNanos = System.nanoTime() + EPOCH_LEAD_NANOS;
        if (alarms != null) {
            try {
                alarms.start();
            } catch (IllegalStateException e) {
                stopAll();
                throw new DeploymentException(DeploymentException.Reason.START_FAILED, e.getMessage(), e);
            }
        }
    }

    /**
     * Stops the components, unregisters the cross-context channels and frees the scopes. The sensors
     * stop delivering before the components stop and close their devices after: a component that
     * writes into them (the autopilot's simulator) never finds its reader gone.
     */
    void stopAll() {
        undeployed = true;
        try {
            if (alarms != null) {
                alarms.stop();
            }
            if (sensors != null) {
                sensors.stopDelivery(); // no listener runs into a stopping component ...
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (CrossContextRouter.Entry e : crossContext.values()) {
            router.unregister(e);
        }
        for (ComponentRuntime c : components) {
            c.stop();
        }
        boolean all = true;
        for (ComponentRuntime c : components) {
            try {
                all &= c.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                all = false;
            }
        }
        try {
            if (sensors != null) {
                sensors.stop(); // ... and the devices close once no component can write into them
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (jobHandlers != null) {
            try {
                jobHandlers.stop();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (all) {
            arena.close();
        } else {
            log.accept("rtdroid: " + name() + ": a component thread did not stop within 5 s; its scopes stay allocated");
        }
    }

    /** The partition's CPU of the component of class {@code className}, or null. */
    private CpuSet cpuOfClass(String className) {
        for (ComponentDecl d : manifest.components()) {
            if (d.className().equals(className)) {
                return context.cpuOf(d.simpleName());
            }
        }
        return null;
    }

    private void releaseChannels() {
        for (CrossContextRouter.Entry e : crossContext.values()) {
            router.unregister(e);
        }
        arena.close();
    }

    long deadlineMissesTotal() {
        long n = 0;
        for (int i = 0; i < components.size(); i++) {
            List<PeriodicTaskRuntime> ts = components.get(i).tasks();
            for (int j = 0; j < ts.size(); j++) {
                n += ts.get(j).deadlineMisses();
            }
        }
        return n;
    }

    long worstLatenessTotal() {
        long w = 0;
        for (int i = 0; i < components.size(); i++) {
            List<PeriodicTaskRuntime> ts = components.get(i).tasks();
            for (int j = 0; j < ts.size(); j++) {
                w = Math.max(w, ts.get(j).worstLatenessNanos());
            }
        }
        return w;
    }

    double utilization() { return manifest.utilization(); }

    /** What components see of their application. */
    private final class Context implements AppContext {
        @Override public String appName() { return manifest.name(); }
        @Override public ChannelDecl channelDecl(String name) { return manifest.channel(name); }
        @Override public MessageChannel messageChannel(String name) { return messageChannels.get(name); }
        @Override public BroadcastChannel broadcastChannel(String name) { return broadcastChannels.get(name); }

        @Override
        public InboundSource broadcastSubscriber(String channel, String componentClass) {
            Map<String, InboundSource> m = broadcastSubscribers.get(channel);
            return m == null ? null : m.get(componentClass);
        }

        @Override public BulkChannel bulkChannel(String name) { return bulkChannels.get(name); }

        @Override
        public MessageChannel crossContextInbound(String name) {
            CrossContextRouter.Entry e = crossContext.get(name);
            return e == null ? null : e.inbound();
        }

        @Override
        public CrossContextPublisher crossContextPublisher(String name) { return crossContext.get(name); }

        @Override public AlarmManager alarmManager() { return alarms; }

        @Override public SensorService sensorService() { return sensors; }

        @Override public org.rtdroid.runtime.event.HandlerDispatcher jobHandlerDispatcher() { return jobHandlers; }

        @Override
        public RealtimePolicy policyFor(int priority) {
            // Unprivileged cells still get 1 ns timer slack (no privilege needed): SCHED_OTHER only.
            return cell.realtime() ? new RealtimePolicy(priority, cell.cpus(), 1) : new RealtimePolicy(0, null, 1);
        }

        @Override
        public CpuSet cpuOf(String component) {
            return cell.realtime() ? cpuOfComponent.get(component) : null;
        }

        @Override public long epochNanos() { return epochNanos; }
        @Override public long deadlineMisses() { return deadlineMissesTotal(); }
        @Override public long worstLatenessNanos() { return worstLatenessTotal(); }
        @Override public void log(String line) { log.accept(line); }
    }
}
