package org.rtdroid.runtime.component;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.ToLongFunction;
import org.rtdroid.runtime.alarm.AlarmManager;
import org.rtdroid.runtime.sensor.ListenerStats;
import org.rtdroid.runtime.sensor.SensorManager;
import org.rtdroid.runtime.sensor.SensorService;
import org.rtdroid.runtime.channel.BroadcastPublisher;
import org.rtdroid.runtime.channel.BulkChannel;
import org.rtdroid.runtime.channel.BulkPublisher;
import org.rtdroid.runtime.channel.ChannelSender;
import org.rtdroid.runtime.channel.InboundSource;
import org.rtdroid.runtime.channel.IntentConsumer;
import org.rtdroid.runtime.channel.MessageChannel;
import org.rtdroid.runtime.channel.MessagePublisher;
import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.manifest.ChannelDecl;
import org.rtdroid.runtime.manifest.ChannelType;
import org.rtdroid.runtime.manifest.ComponentDecl;
import org.rtdroid.runtime.manifest.ComponentKind;
import org.rtdroid.runtime.manifest.FailurePolicy;
import org.rtdroid.runtime.manifest.IntentFilterDecl;
import org.rtdroid.runtime.manifest.PeriodicTaskDecl;
import org.rtdroid.runtime.memory.HeapBoundExceededError;
import org.rtdroid.runtime.memory.HeapMeter;
import org.rtdroid.runtime.memory.ImmortalScope;
import org.rtdroid.runtime.memory.Scope;
import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.os.FlightRecorder;
import org.rtdroid.runtime.os.Errno;
import org.rtdroid.runtime.os.ExecutionMeter;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.os.RealtimePolicy;
import org.rtdroid.runtime.os.RealtimeThreads;
import org.rtdroid.runtime.xcc.CrossContextPublisher;
import org.rtdroid.runtime.event.HandlerDispatcher;
import org.rtdroid.runtime.manifest.JobHandlerDecl;
import org.rtdroid.runtime.manifest.ReflectionDecl;
import org.rtdroid.runtime.reflection.ExecutionEngine;
import org.rtdroid.runtime.reflection.PastTimeline;
import org.rtdroid.runtime.reflection.RealTimeLine;
import org.rtdroid.runtime.reflection.Strategist;

/**
 * The runtime side of one component: its thread, scopes, inbound sources, periodic tasks, counters
 * and failure policy. Created and driven by the bootstrap; application code never sees it.
 */
public final class ComponentRuntime implements IntentConsumer {
    /**
     * Callbacks / releases exempt from the heap bound (still measured): while code is interpreted
     * and being compiled, the JVM itself allocates on the calling thread (class loading and
     * linking, method-handle customization), whatever the component does.
     */
    public static final int HEAP_WARMUP_CALLBACKS = 1000;

    private final ComponentDecl decl;
    private final RealtimeComponent instance;
    private final AppContext app;
    private final Scope persistent;
    private final ImmortalScope immortal;
    private final Scope release;
    private final Map<String, Scope> taskScopes;
    private final HeapBoundExceededError heapError;
    private final CountDownLatch started = new CountDownLatch(1);
    private final List<PeriodicTaskRuntime> tasks = new ArrayList<>();
    private final Map<String, Object> ends = new HashMap<>();
    private final List<InboundSource> sourceList = new ArrayList<>();
    private final List<RealtimeHandler> handlerList = new ArrayList<>();
    private InboundSource[] sources = new InboundSource[0];
    private RealtimeHandler[] handlers = new RealtimeHandler[0];
    private RealtimeHandler currentHandler;
    private volatile boolean setupPhase = true;

    private volatile ComponentState state = ComponentState.CREATED;
    private volatile boolean running = true;
    private volatile Thread thread;
    private volatile Throwable startFailure;
    private volatile Throwable lastFailure;
    // Where lastFailure happened; written before it (lastFailure is the publishing volatile write).
    private String failureTask;
    private long failureRelease;
    private volatile String degraded;
    private volatile int tid;
    private volatile long callbacks;
    private volatile long failures;
    private volatile long heapViolations;
    private volatile long worstDeliveryNanos;
    private volatile long worstResponseNanos;
    private final ExecutionMeter execution = new ExecutionMeter(0);
    private final byte[] traceName;  // the component in the flight recorder's marker (FlightRecorder)
    private volatile long lastHeapBytes;
    // Reflection: its callbacks' past and handlers; a reflective service's timeline and engine.
    private final JobReflection jobs;
    private volatile long deadlineNanos;
    private long previousEndNanos = Long.MIN_VALUE;
    private final RealTimeLine timeline;
    private volatile Strategist strategist;
    private volatile ExecutionEngine engine;

    public ComponentRuntime(ComponentDecl decl, RealtimeComponent instance, AppContext app, Scope persistent,
                            Scope release, ImmortalScope immortal, Map<String, Scope> taskScopes) {
        this.decl = decl;
        this.instance = instance;
        this.app = app;
        this.persistent = persistent;
        this.release = release;
        this.immortal = immortal;
        this.taskScopes = taskScopes;
        this.heapError = new HeapBoundExceededError(decl.simpleName(), decl.memSizes().releaseBytes());
        this.traceName = (app.appName() + "/" + decl.simpleName()).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        instance.runtime = this;
        this.jobs = new JobReflection(decl.simpleName(), decl.handler(JobHandlerDecl.Kind.DEADLINE_MISS),
                decl.handler(JobHandlerDecl.Kind.COST_OVERRUN));
        ReflectionDecl r = decl.reflection();
        this.timeline = r == null ? null
                : new RealTimeLine(decl.simpleName(), r.futureCapacity(), r.pastCapacity(), 4);
        if (decl.kind() == ComponentKind.RECEIVER) {
            for (IntentFilterDecl f : decl.intentFilters()) {
                if (f.role() != IntentFilterDecl.Role.SUBSCRIBER) {
                    continue;
                }
                for (String ch : f.channels()) {
                    sourceList.add(sourceFor(ch));
                    handlerList.add(null);
                }
            }
        }
    }

    // ------------------------------------------------------------------ accessors

    public ComponentDecl decl() { return decl; }
    public RealtimeComponent instance() { return instance; }
    AppContext app() { return app; }
    public Scope persistentScope() { return persistent; }
    public Scope releaseScope() { return release; }
    public ImmortalScope immortalScope() { return immortal; }
    public ComponentState state() { return state; }
    /** Its callbacks: delivered intents (or alarms), and its sensor listeners' callbacks. */
    public long callbacks() { return withListeners(callbacks, ListenerStats::callbacks, false); }
    public long failures() { return failures; }
    public long heapViolations() { return heapViolations; }
    /** Worst time from a message's send (a sensor frame's time stamp) to the start of its callback. */
    public long worstDeliveryNanos() { return withListeners(worstDeliveryNanos, ListenerStats::worstDeliveryNanos, true); }
    /** Worst send-to-completion time of a callback (onReceive + onClean, or the handler; a sensor
     *  listener's from its frame's time stamp): the measured counterpart of a sporadic component's
     *  analysed worst-case response time. */
    public long worstResponseNanos() { return withListeners(worstResponseNanos, ListenerStats::worstResponseNanos, true); }
    /** The most CPU time one callback's code used (its thread's CPU clock; 0 before the first). */
    public long worstExecutionNanos() { return withListeners(execution.worstNanos(), ListenerStats::worstCpuNanos, true); }
    /** Callbacks whose code used more CPU time than {@link #costNanos()} (0 when no cost is known). */
    public long costOverruns() { return withListeners(execution.overruns(), ListenerStats::overruns, false); }
    /** The callback (from 1) that overran its cost last; 0: none did. Intents and each sensor's
     *  listener callbacks are numbered apart: the latest-numbered overrun of them. */
    public long lastCostOverrun() { return withListeners(execution.lastOverrun(), ListenerStats::lastOverrun, true); }
    /** The cost per callback the admission analysis assumed (its declared {@code cost}); 0: none. */
    public long costNanos() { return execution.costNanos(); }

    /** Sets the cost the analysis assumed for one callback (the deployed model's), sensor listeners' included. */
    public void costNanos(long nanos) {
        synchronized (this) {
            execution.costNanos(nanos);
            if (sensorManager != null) {
                sensorManager.costNanos(nanos);
            }
        }
    }
    public long lastHeapBytes() { return lastHeapBytes; }
    /** Its callbacks' recent jobs and its miss and overrun handlers. */
    public JobReflection jobs() { return jobs; }
    /** The deadline of one callback from its intent's send (a receiver's: its minimum inter-arrival time); 0: none. */
    public long deadlineNanos() { return deadlineNanos; }
    /** Sets the deadline the analysis assumed for one callback (the deployed model's). */
    public void deadlineNanos(long nanos) { deadlineNanos = nanos; }
    /** A reflective service's timeline, or null. */
    public RealTimeLine timeline() { return timeline; }
    /** A reflective service's execution engine once started, or null. */
    public ExecutionEngine engine() { return engine; }
    /** The failure that made this component FAILED, else the latest one; null if none. */
    public Throwable lastFailure() { return lastFailure; }
    /** The periodic task whose release failed (null: a callback of the component, or start-up). */
    public String failureTask() { return failureTask; }
    /** The release (or callback) of {@link #failureTask()} that failed, from 1; 0 = during start-up. */
    public long failureRelease() { return failureRelease; }
    /** What the OS did not grant this component's thread (null if everything was applied). */
    public String degraded() { return degraded; }
    public List<PeriodicTaskRuntime> tasks() { return tasks; }
    /** The kernel thread id of the component's thread (0 before it started). */
    public int tid() { return tid; }
    /** The CPU the cell's partition pins this component's threads to, or null (not partitioned). */
    public CpuSet cpu() { return app.cpuOf(decl.simpleName()); }
    boolean isRunning() { return running; }
    public Thread thread() { return thread; }

    // ------------------------------------------------------------------ channel ends

    private ChannelDecl channel(String name, ChannelType type) {
        ChannelDecl c = app.channelDecl(name);
        if (c == null) {
            throw new IllegalArgumentException(decl.simpleName() + ": no channel '" + name + "' in the manifest");
        }
        if (c.type() != type) {
            throw new IllegalArgumentException(decl.simpleName() + ": channel '" + name + "' is "
                    + c.type().manifestName() + ", not " + type.manifestName());
        }
        return c;
    }

    private void requireRole(String name, IntentFilterDecl.Role role) {
        if (decl.count(role, name) == 0) {
            throw new IllegalStateException(decl.simpleName() + " does not declare <intent-filter role=\""
                    + role.name().toLowerCase(java.util.Locale.ROOT) + "\"> for channel '" + name + "'");
        }
    }

    private ChannelSender newSender(String channel, int priority) {
        return new ChannelSender(channel, decl.simpleName(), priority, true);
    }

    synchronized MessagePublisher messagePublisher(String name, int priority) {
        channel(name, ChannelType.MESSAGE);
        requireRole(name, IntentFilterDecl.Role.PUBLISHER);
        return (MessagePublisher) ends.computeIfAbsent("msg:" + name + "@" + priority,
                k -> new MessagePublisher(app.messageChannel(name), newSender(name, priority)));
    }

    synchronized BroadcastPublisher broadcastPublisher(String name, int priority) {
        channel(name, ChannelType.BROADCAST);
        requireRole(name, IntentFilterDecl.Role.PUBLISHER);
        return (BroadcastPublisher) ends.computeIfAbsent("bc:" + name + "@" + priority,
                k -> new BroadcastPublisher(app.broadcastChannel(name), newSender(name, priority)));
    }

    synchronized BulkPublisher bulkPublisher(String name, int priority) {
        channel(name, ChannelType.BULK);
        requireRole(name, IntentFilterDecl.Role.PUBLISHER);
        return (BulkPublisher) ends.computeIfAbsent("bulk:" + name + "@" + priority,
                k -> new BulkPublisher(app.bulkChannel(name), newSender(name, priority)));
    }

    MessageChannel consumedMessageChannel(String name) {
        ChannelDecl c = app.channelDecl(name);
        if (c == null) {
            throw new IllegalArgumentException(decl.simpleName() + ": no channel '" + name + "' in the manifest");
        }
        requireRole(name, IntentFilterDecl.Role.SUBSCRIBER);
        return switch (c.type()) {
            case MESSAGE -> app.messageChannel(name);
            case CROSS_CONTEXT -> app.crossContextInbound(name);
            default -> throw new IllegalArgumentException(decl.simpleName() + ": channel '" + name + "' is "
                    + c.type().manifestName() + ": poll only rt-msg or cross-context channels");
        };
    }

    BulkChannel consumedBulkChannel(String name) {
        channel(name, ChannelType.BULK);
        requireRole(name, IntentFilterDecl.Role.SUBSCRIBER);
        return app.bulkChannel(name);
    }

    CrossContextPublisher crossContextPublisher(String name) {
        channel(name, ChannelType.CROSS_CONTEXT);
        requireRole(name, IntentFilterDecl.Role.PUBLISHER);
        return app.crossContextPublisher(name);
    }

    private InboundSource sourceFor(String name) {
        ChannelDecl c = app.channelDecl(name);
        return switch (c.type()) {
            case MESSAGE -> app.messageChannel(name);
            case CROSS_CONTEXT -> app.crossContextInbound(name);
            case BROADCAST -> app.broadcastSubscriber(name, decl.className());
            case BULK -> throw new IllegalStateException(decl.simpleName() + ": channel '" + name
                    + "' is rt-bulk: poll it with bulkChannel(name).receive(handler)");
        };
    }

    void registerTask(String name, PeriodicTask task) {
        if (!setupPhase) {
            throw new IllegalStateException("registerTask is allowed only in onCreate/onStartCommand");
        }
        PeriodicTaskDecl td = null;
        for (PeriodicTaskDecl d : decl.tasks()) {
            if (d.name().equals(name)) {
                td = d;
            }
        }
        if (td == null) {
            throw new IllegalArgumentException(decl.simpleName() + ": no <periodic-task name=\"" + name
                    + "\"> declared in the manifest");
        }
        for (PeriodicTaskRuntime t : tasks) {
            if (t.decl().name().equals(name)) {
                throw new IllegalStateException(decl.simpleName() + ": task '" + name + "' registered twice");
            }
        }
        if (task.runtime != null) {
            throw new IllegalStateException("this PeriodicTask object is already registered");
        }
        tasks.add(new PeriodicTaskRuntime(td, this, task, taskScopes.get(name)));
    }

    /** Set-up: the code of a handler the manifest declares, for task {@code task} or (null) the component's callbacks. */
    void setJobHandler(String task, JobHandlerDecl.Kind kind, JobEventHandler handler) {
        if (!setupPhase) {
            throw new IllegalStateException("a " + kind.element() + " is set only in onCreate/onStartCommand");
        }
        if (task == null) {
            jobs.set(kind, handler, decl.simpleName());
            return;
        }
        for (PeriodicTaskRuntime t : tasks) {
            if (t.decl().name().equals(task)) {
                t.jobs().set(kind, handler, decl.simpleName() + "/" + task);
                return;
            }
        }
        throw new IllegalArgumentException(decl.simpleName() + ": no registered periodic task '" + task
                + "' (register it before setting its handlers)");
    }

    /** Set-up: the strategist of a reflective service. */
    void setStrategist(Strategist s) {
        if (!setupPhase) {
            throw new IllegalStateException("the strategist is set only in onCreate/onStartCommand");
        }
        if (timeline == null) {
            throw new IllegalStateException(decl.simpleName() + " is not reflective: its manifest declares no <reflection>");
        }
        strategist = s;
    }

    RealTimeLine reflectiveTimeline() {
        if (timeline == null) {
            throw new IllegalStateException(decl.simpleName() + " is not reflective: its manifest declares no <reflection>");
        }
        return timeline;
    }

    void registerHandler(String name, RealtimeHandler handler) {
        if (!setupPhase) {
            throw new IllegalStateException("registerHandler is allowed only in onCreate/onStartCommand");
        }
        requireRole(name, IntentFilterDecl.Role.SUBSCRIBER);
        InboundSource s = sourceFor(name);
        if (sourceList.contains(s)) {
            throw new IllegalStateException(decl.simpleName() + ": a handler for '" + name + "' is already registered");
        }
        sourceList.add(s);
        handlerList.add(handler);
    }

    // ------------------------------------------------------------------ lifecycle

    /** Starts the component's thread; {@link #awaitStarted} reports how start went. */
    public void start(String threadName) {
        Thread t = Thread.ofPlatform().name(threadName).daemon(true).unstarted(this::threadMain);
        thread = t;
        t.start();
    }

    /**
     * Waits until onCreate/onStartCommand returned and the tasks are started.
     *
     * @return null on success, else the failure (a timeout is reported as an IllegalStateException)
     */
    public Throwable awaitStarted(long timeoutMillis) throws InterruptedException {
        if (!started.await(timeoutMillis, TimeUnit.MILLISECONDS)) {
            return new IllegalStateException(decl.simpleName() + " did not finish starting within " + timeoutMillis + " ms");
        }
        return startFailure;
    }

    /**
     * Applies the policy of {@code priority} to the calling thread (one of this component's) and
     * pins it to the component's CPU when the cell is partitioned.
     *
     * @throws IllegalStateException when the thread cannot be pinned (the errno says why): a
     *     thread running elsewhere than the analysis placed it would void the analysis
     */
    void applyPolicy(int priority) {
        RealtimePolicy p = app.policyFor(priority);
        CpuSet cpu = cpu();
        if (p != null) {
            var applied = RealtimeThreads.applyToCurrentThread(cpu == null ? p : p.withCpus(null));
            if (applied.isDegraded()) {
                degraded = applied.degraded();
            }
        }
        if (cpu != null) {
            int err = Linux.setAffinity(cpu);
            if (err != 0) {
                throw new IllegalStateException(decl.simpleName() + ": thread " + Thread.currentThread().getName()
                        + " cannot be pinned to CPU " + cpu + " as the cell's partition places it: sched_setaffinity: "
                        + Errno.describe(err));
            }
        }
    }

    private void threadMain() {
        // Start-up is not real-time work: it loads and links the application's classes and runs
        // interpreted code for milliseconds. At the declared priority it would preempt the
        // components already running on the cell's CPUs (measured: 1.5-2.5 ms stalls of a running
        // 1 ms task while a higher-priority app deployed); at any SCHED_FIFO priority it starves
        // the JVM's own threads (AppContext#startupPriority). So: SCHED_OTHER until the component
        // is ready, then its own priority, before any task is released or intent delivered.
        tid = Linux.gettid();
        state = ComponentState.STARTING;
        try {
            applyPolicy(app.startupPriority());
            if (instance instanceof RealtimeService s) {
                s.onCreate();
                release.reset();
                s.onStartCommand();
                release.reset();
                for (PeriodicTaskDecl d : decl.tasks()) {
                    boolean found = false;
                    for (PeriodicTaskRuntime t : tasks) {
                        found |= t.decl().name().equals(d.name());
                    }
                    if (!found) {
                        throw new IllegalStateException(decl.simpleName() + ": periodic task '" + d.name()
                                + "' is declared in the manifest but was not registered in onCreate/onStartCommand");
                    }
                }
            } else if (instance instanceof RealtimeReceiver r) {
                r.onCreate();
                release.reset();
            }
            attachJobHandlers();
            if (timeline != null && strategist == null) {
                throw new IllegalStateException(decl.simpleName() + " declares <reflection> but set no strategist in onCreate/onStartCommand");
            }
        } catch (Throwable t) {
            failStart(t);
            return;
        }
        sources = sourceList.toArray(new InboundSource[0]);
        handlers = handlerList.toArray(new RealtimeHandler[0]);
        Thread me = Thread.currentThread();
        for (InboundSource s : sources) {
            s.setConsumerThread(me);
        }
        setupPhase = false;
        immortal.seal(); // start-up is over: what the component keeps is in place
        try {
            applyPolicy(decl.priority());
        } catch (IllegalStateException e) {
            failStart(e);
            return;
        }
        for (PeriodicTaskRuntime t : tasks) {
            t.start(app.appName() + "/" + t.decl().name());
        }
        if (timeline != null) {
            Throwable failure = startEngine();
            if (failure != null) {
                for (PeriodicTaskRuntime t : tasks) {
                    t.stop();
                }
                failStart(failure);
                return;
            }
        }
        state = ComponentState.RUNNING;
        started.countDown();

        deliveryLoop();

        stopEngine();
        for (PeriodicTaskRuntime t : tasks) {
            t.stop();
        }
        for (PeriodicTaskRuntime t : tasks) {
            t.join(2_000);
        }
        try {
            if (instance instanceof RealtimeService s) {
                s.onDestroy();
            } else if (instance instanceof RealtimeReceiver r) {
                r.onDestroy();
            }
        } catch (Throwable t) {
            app.log(decl.simpleName() + ": onDestroy threw " + t);
        }
        release.reset();
        if (state != ComponentState.FAILED) {
            state = ComponentState.DESTROYED;
        }
    }

    /** Every declared miss and overrun handler has the application's code and a thread at its priority. */
    private void attachJobHandlers() {
        HandlerDispatcher d = app.jobHandlerDispatcher();
        String missing = jobs.unset();
        if (missing != null) {
            throw new IllegalStateException(decl.simpleName() + " declares a <" + missing
                    + "> but set none in onCreate/onStartCommand");
        }
        if (jobs.hasHandlers()) {
            jobs.attach(d, cpu());
        }
        for (PeriodicTaskRuntime t : tasks) {
            missing = t.jobs().unset();
            if (missing != null) {
                throw new IllegalStateException(decl.simpleName() + "/" + t.decl().name() + " declares a <" + missing
                        + "> but set none in onCreate/onStartCommand");
            }
            if (t.jobs().hasHandlers()) {
                t.jobs().attach(d, cpu());
            }
        }
    }

    /**
     * Starts a reflective service's execution engine at its engine priority, pinned to the
     * component's CPU. @return null, or why it could not start
     */
    private Throwable startEngine() {
        ExecutionEngine e = new ExecutionEngine(timeline, strategist);
        e.wakeGuardNanos(decl.reflection().wakeGuardNanos());
        int priority = decl.reflection().enginePriority();
        e.start(app.appName() + "/" + decl.simpleName() + "/engine", () -> applyPolicy(priority));
        engine = e;
        try {
            return e.awaitStarted(10_000);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            return x;
        }
    }

    private void stopEngine() {
        ExecutionEngine e = engine;
        if (e != null) {
            e.stop();
            try {
                e.join(2_000);
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The component failed before it ran: {@link #awaitStarted} reports {@code t}. */
    private void failStart(Throwable t) {
        startFailure = t;
        record(t, null, 0);
        state = ComponentState.FAILED;
        running = false;
        started.countDown();
    }

    /** Delivers intents of all sources in sender-priority order, oldest first among equals. */
    private void deliveryLoop() {
        final InboundSource[] src = sources;
        while (running) {
            int best = -1;
            int bestPrio = -1;
            long bestSeq = Long.MAX_VALUE;
            for (int i = 0; i < src.length; i++) {
                int p = src[i].headPriority();
                if (p < 0) {
                    continue;
                }
                long seq = src[i].headSeq();
                if (p > bestPrio || (p == bestPrio && seq < bestSeq)) {
                    best = i;
                    bestPrio = p;
                    bestSeq = seq;
                }
            }
            if (best < 0) {
                // Untimed: every source unparks its consumer after queueing, and stop() unparks it
                // too (a permit given before park makes park return at once). A timed park here
                // used to wake this thread every 20 ms at its real-time priority, on the cell's CPU,
                // for nothing: with a periodic task of the same priority there, a wake-up next to a
                // release delayed the release (seen as lateness tail in the periodic benchmark).
                LockSupport.park(this);
                continue;
            }
            currentHandler = handlers[best];
            src[best].deliverOne(this);
        }
    }

    private volatile SensorManager sensorManager;
    private static final ListenerStats[] NO_LISTENERS = new ListenerStats[0];

    /**
     * {@code own} (this component's intents and alarms) with its sensor listeners' {@code field}
     * (per sensor its SensorManager registered on): their maximum, or their sum.
     */
    private long withListeners(long own, ToLongFunction<ListenerStats> field, boolean max) {
        SensorManager sm = sensorManager;
        long v = own;
        for (ListenerStats s : sm == null ? NO_LISTENERS : sm.listenerStats()) {
            long x = field.applyAsLong(s);
            v = max ? Math.max(v, x) : v + x;
        }
        return v;
    }

    /**
     * This component's SensorManager (its listeners run at its priority, on its CPU); created on first use
     * (set-up); fails with the reason if the manifest declares no {@code <sensors>}.
     */
    synchronized SensorManager sensorManager() {
        if (sensorManager == null) {
            SensorService s = app.sensorService();
            if (s == null) {
                throw new IllegalStateException(app.appName() + "/" + decl.simpleName()
                        + ": the manifest declares no <sensors listeners queue strategy/>, so the application has no SensorManager");
            }
            SensorManager sm = s.manager(decl.priority(), cpu());  // its listeners' lane on its CPU
            sm.costNanos(execution.costNanos());  // their callbacks are its own: counted against its cost
            sensorManager = sm;
        }
        return sensorManager;
    }

    /** The application's AlarmManager; fails with the reason if the manifest declares none. */
    AlarmManager alarmManager() {
        AlarmManager am = app.alarmManager();
        if (am == null) {
            throw new IllegalStateException(app.appName() + "/" + decl.simpleName()
                    + ": the manifest declares no <alarms capacity strategy/>, so the application has no AlarmManager");
        }
        return am;
    }

    /**
     * An alarm for this receiver, on the alarm handler's thread at the receiver's priority: the
     * same callback, scope reset, heap bound and failure policy as an intent from a channel. Only a
     * receiver that subscribes to no channel is an alarm target, so this is the only thread calling
     * {@link #onIntent}. Once the component stopped or failed, alarms are dropped.
     */
    public void onAlarm(RealtimeIntent intent) {
        if (running && state == ComponentState.RUNNING) {
            onIntent(intent);
        }
    }

    /** One delivered intent: the receiver's onReceive + onClean, or the service's handler. */
    @Override
    public void onIntent(RealtimeIntent intent) {
        long startNanos = System.nanoTime();
        long delivery = startNanos - intent.sendNanos();
        if (delivery > worstDeliveryNanos) {
            worstDeliveryNanos = delivery;
        }
        long before = HeapMeter.currentThreadAllocatedBytes();
        long cpu = ExecutionMeter.start();
        long released = intent.sendNanos();
        int flags = previousEndNanos > released ? PastTimeline.CLOBBERED : 0;
        try {
            if (instance instanceof RealtimeReceiver r) {
                try {
                    r.onReceive(intent);
                } finally {
                    r.onClean();
                }
            } else {
                currentHandler.handleMessage(intent);
            }
        } catch (Throwable t) {
            flags |= PastTimeline.FAILED;
            fail(t, null, callbacks + 1);
        }
        if (execution.end(cpu, callbacks + 1)) {
            flags |= PastTimeline.COST_OVERRUN;
            FlightRecorder.overran(traceName, callbacks + 1, startNanos, execution.lastNanos(), execution.costNanos());
        }
        long used = HeapMeter.currentThreadAllocatedBytes() - before;
        lastHeapBytes = used;
        release.reset();
        long end = System.nanoTime();
        long response = end - released;
        if (response > worstResponseNanos) {
            worstResponseNanos = response;
        }
        long deadline = deadlineNanos;
        if (deadline > 0 && response > deadline) {
            flags |= PastTimeline.DEADLINE_MISS | PastTimeline.LATE;
        }
        previousEndNanos = end;
        jobs.record(released, deadline > 0 ? released + deadline : released, startNanos, end, flags);
        long n = callbacks + 1;
        callbacks = n;
        if (n > HEAP_WARMUP_CALLBACKS && used > decl.memSizes().releaseBytes()) {
            heapViolations++;
            fail(heapError.record(used), null, n);
        }
    }

    /**
     * A callback of this component (or release {@code release} of its task {@code task}, null for
     * the component's own callbacks) failed: count it, keep its cause and apply the policy. Keeping
     * the cause allocates nothing: the status builds its description on the management path.
     */
    void fail(Throwable t, String task, long release) {
        failures++;
        record(t, task, release);
        if (failures <= 3) {
            StackTraceElement[] at = t.getStackTrace();
            app.log(app.appName() + "/" + decl.simpleName() + " failed (" + decl.failurePolicy() + ") at "
                    + (task == null ? "callback " : "task " + task + " release ") + release + ": " + t
                    + (at.length > 0 ? " at " + at[0] : ""));
        }
        if (decl.failurePolicy() == FailurePolicy.STOP) {
            state = ComponentState.FAILED;
            running = false;
            for (PeriodicTaskRuntime each : tasks) {
                each.stop();
            }
        }
    }

    /** The cause that made the component FAILED stays; under on-failure="continue" the latest counts. */
    private void record(Throwable t, String task, long release) {
        if (state == ComponentState.FAILED && lastFailure != null) {
            return;
        }
        failureTask = task;
        failureRelease = release;
        lastFailure = t;
    }

    /** Stops the component: its engine and tasks, then onDestroy on its own thread. */
    public void stop() {
        running = false;
        ExecutionEngine e = engine;
        if (e != null) {
            e.stop();
        }
        if (state == ComponentState.RUNNING) {
            state = ComponentState.STOPPING;
        }
        for (PeriodicTaskRuntime t : tasks) {
            t.stop();
        }
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** Waits for the component's thread to finish. @return whether it did */
    public boolean join(long millis) throws InterruptedException {
        return RealtimeThreads.join(thread, millis);
    }
}
