package org.rtdroid.runtime.boot;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.Consumer;
import org.rtdroid.runtime.component.PeriodicTask;
import org.rtdroid.runtime.component.RealtimeComponent;
import org.rtdroid.runtime.component.RealtimeReceiver;
import org.rtdroid.runtime.component.RealtimeService;
import org.rtdroid.runtime.manifest.ComponentDecl;
import org.rtdroid.runtime.manifest.ComponentKind;
import org.rtdroid.runtime.manifest.Manifest;
import org.rtdroid.runtime.manifest.ManifestException;
import org.rtdroid.runtime.manifest.PeriodicTaskDecl;
import org.rtdroid.runtime.manifest.TimingDeclarations;
import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.os.RealtimeThreads;
import org.rtdroid.runtime.validation.ModelBuilder;
import org.rtdroid.runtime.validation.Partition;
import org.rtdroid.runtime.validation.SystemModel;
import org.rtdroid.runtime.text.Printable;
import org.rtdroid.runtime.xcc.CrossContextEndpoint;
import org.rtdroid.runtime.xcc.CrossContextRouter;

/**
 * The RTDroid runtime of one RT cell: deploys applications from their manifests (checking memory
 * budget, priorities and utilization against what is already running, then pre-allocating every
 * scope, channel and message and starting the components), reports their status, and offers the
 * cross-context endpoint the bridge's RT-side proxy uses.
 *
 * <p>On a cell of several CPUs it runs the partition the static validation analyses: each new
 * application's components are placed by {@link Partition#assign} (the analysis's own function) over
 * the models of everything deployed, the running components kept where they are, and every
 * real-time thread of a component (its thread, its periodic tasks, the event-handler threads of its
 * alarm callbacks) is pinned to its component's CPU before the first release.
 */
public final class RuntimeHost {
    /** How long a component may take in onCreate + onStartCommand. */
    public static final long START_TIMEOUT_MILLIS = 10_000;

    private final CellConfig config;
    private final CrossContextRouter router;
    private final Map<String, DeployedApp> apps = new LinkedHashMap<>();
    /** The analysis model of every deployed application (what the partition is computed over). */
    private final Map<String, SystemModel> models = new LinkedHashMap<>();
    /** CPU index (within {@link CellConfig#cpus}) of every placed component, {@code app/Component}. */
    private final Map<String, Integer> partition = new LinkedHashMap<>();
    private volatile Consumer<String> log = line -> System.err.println(Printable.oneLine(line));
    private volatile boolean shutdown;

    private RuntimeHost(CellConfig config) {
        this.config = config;
        this.router = new CrossContextRouter(config.minPriority(), config.outboundCapacity());
    }

    /** Starts a runtime for a cell: mlockall (if configured), nothing deployed yet. */
    public static RuntimeHost start(CellConfig config) {
        if (config.lockMemory()) {
            RealtimeThreads.lockMemory();
        }
        return new RuntimeHost(config);
    }

    public CellConfig config() { return config; }

    /** Where failures and warnings go (System.err by default). */
    public void setLog(Consumer<String> sink) { this.log = sink; }

    /**
     * Deploys an application whose manifest carries no timing declarations beyond its tasks' wcet
     * (its components are placed as {@link ModelBuilder} models them without costs or pins).
     *
     * @see #deploy(Manifest, SystemModel, ClassLoader)
     */
    public DeployedApp deploy(Manifest manifest, ClassLoader loader) throws ManifestException, DeploymentException {
        return deploy(manifest, ModelBuilder.build(manifest, TimingDeclarations.none()), loader);
    }

    /**
     * Deploys an application: validates it against the cell (priority range, memory budget,
     * utilization), places its components on the cell's CPUs ({@code model}: its analysis model,
     * {@link ModelBuilder#build}), loads its classes from {@code loader}, pre-allocates and starts it.
     *
     * @throws ManifestException if a priority lies outside the cell's range, or a {@code cpu} pin is not
     *     a CPU of the cell or pins one component's tasks to two CPUs ({@code PARTITION: ...})
     * @throws DeploymentException with reason OVER_BUDGET, LOAD_FAILED, START_FAILED (also when a
     *     thread cannot be pinned to its CPU: the errno names why) or DUPLICATE
     */
    public synchronized DeployedApp deploy(Manifest manifest, SystemModel model, ClassLoader loader)
            throws ManifestException, DeploymentException {
        if (shutdown) {
            throw new IllegalStateException("runtime is shut down");
        }
        if (apps.containsKey(manifest.name())) {
            throw new DeploymentException(DeploymentException.Reason.DUPLICATE,
                    "application '" + manifest.name() + "' is already deployed");
        }
        for (ComponentDecl c : manifest.components()) {
            checkPriority(manifest, c.line(), c.kind() == ComponentKind.SERVICE ? "service" : "receiver",
                    c.simpleName(), c.priority());
            for (PeriodicTaskDecl t : c.tasks()) {
                checkPriority(manifest, t.line(), "periodic-task", t.name(), t.priority());
                for (org.rtdroid.runtime.manifest.JobHandlerDecl h : t.handlers()) {
                    checkPriority(manifest, h.line(), h.kind().element(), t.name(), h.priority());
                }
            }
            for (org.rtdroid.runtime.manifest.JobHandlerDecl h : c.handlers()) {
                checkPriority(manifest, h.line(), h.kind().element(), c.simpleName(), h.priority());
            }
            if (c.reflection() != null) {
                checkPriority(manifest, c.reflection().line(), "reflection", c.simpleName(), c.reflection().enginePriority());
            }
        }
        long used = 0;
        double utilization = 0;
        for (DeployedApp a : apps.values()) {
            used += a.reservedBytes();
            utilization += a.utilization();
        }
        long need = manifest.totalScopeBytes() + manifest.totalChannelBytes();
        if (used + need > config.budgetBytes()) {
            throw new DeploymentException(DeploymentException.Reason.OVER_BUDGET, "application '" + manifest.name()
                    + "' needs " + need + " B (scopes " + manifest.totalScopeBytes() + " B + channels "
                    + manifest.totalChannelBytes() + " B) but the cell has " + (config.budgetBytes() - used)
                    + " B of its " + config.budgetBytes() + " B budget left");
        }
        if (utilization + manifest.utilization() > config.cpuCount()) {
            throw new DeploymentException(DeploymentException.Reason.OVER_BUDGET, String.format(java.util.Locale.ROOT,
                    "application '%s' adds utilization %.3f to %.3f already deployed: over the cell's %d CPU(s)",
                    manifest.name(), manifest.utilization(), utilization, config.cpuCount()));
        }
        List<SystemModel> all = new ArrayList<>(models.values());
        all.add(model);
        Partition.Assignment placed = Partition.assign(SystemModel.union(all), config.cpuCount(), partition);
        if (!placed.problems().isEmpty()) {
            throw new ManifestException(manifest.sourceName(), 0, "cpu", String.join("; ", placed.problems()));
        }
        Map<String, Integer> mine = new LinkedHashMap<>();
        Map<String, CpuSet> cpuOfComponent = new LinkedHashMap<>();
        int[] cellCpus = config.cpus() == null ? null : config.cpus().toArray();
        for (Map.Entry<String, Integer> e : placed.cpuOf().entrySet()) {
            if (e.getKey().startsWith(manifest.name() + "/")) {
                mine.put(e.getKey(), e.getValue());
                if (cellCpus != null) {
                    cpuOfComponent.put(e.getKey().substring(manifest.name().length() + 1), CpuSet.of(cellCpus[e.getValue()]));
                }
            }
        }
        Map<ComponentDecl, RealtimeComponent> instances = new LinkedHashMap<>();
        for (ComponentDecl c : manifest.components()) {
            instances.put(c, instantiate(c, loader));
        }
        DeployedApp app = new DeployedApp(manifest, config, router, line -> log.accept(line), cpuOfComponent);
        app.allocate(instances);
        app.assumeCosts(model);
        app.start(START_TIMEOUT_MILLIS);
        apps.put(manifest.name(), app);
        models.put(manifest.name(), model);
        partition.putAll(mine);
        return app;
    }

    /**
     * The CPU index (within {@link CellConfig#cpus}) of every placed component of the deployed
     * applications, keyed {@code app/Component}: what admission control keeps fixed.
     */
    public synchronized Map<String, Integer> partition() {
        return Map.copyOf(partition);
    }

    private void checkPriority(Manifest m, int line, String element, String what, int priority) throws ManifestException {
        if (priority < config.minPriority() || priority > config.maxPriority()) {
            throw new ManifestException(m.sourceName(), line, element, what + ": priority " + priority
                    + " is outside the cell's real-time range " + config.minPriority() + ".." + config.maxPriority());
        }
    }

    private static RealtimeComponent instantiate(ComponentDecl c, ClassLoader loader) throws DeploymentException {
        Class<?> cls;
        try {
            cls = Class.forName(c.className(), false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new DeploymentException(DeploymentException.Reason.LOAD_FAILED,
                    "class " + c.className() + " cannot be loaded: " + e, e);
        }
        Class<?> expected = c.kind() == ComponentKind.SERVICE ? RealtimeService.class : RealtimeReceiver.class;
        if (!expected.isAssignableFrom(cls)) {
            throw new DeploymentException(DeploymentException.Reason.LOAD_FAILED, "class " + c.className()
                    + " is declared as a <" + (c.kind() == ComponentKind.SERVICE ? "service" : "receiver")
                    + "> but does not extend " + expected.getName()
                    + (PeriodicTask.class.isAssignableFrom(cls) ? " (a PeriodicTask is registered by its service)" : ""));
        }
        try {
            return (RealtimeComponent) cls.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            Throwable cause = e instanceof java.lang.reflect.InvocationTargetException ite ? ite.getCause() : e;
            throw new DeploymentException(DeploymentException.Reason.LOAD_FAILED,
                    "class " + c.className() + " cannot be instantiated (needs a public no-argument constructor): " + cause,
                    cause);
        }
    }

    /**
     * Stops and removes an application: its cross-context channels close at once, its components
     * stop (periodic tasks, then onDestroy), its scopes are freed.
     *
     * @throws NoSuchElementException if no application of that name is deployed
     */
    public void undeploy(String appName) {
        DeployedApp app;
        synchronized (this) {
            app = apps.remove(appName);
            models.remove(appName);
            partition.keySet().removeIf(k -> k.startsWith(appName + "/"));
        }
        if (app == null) {
            throw new NoSuchElementException("no application '" + appName + "' is deployed");
        }
        app.stopAll();
    }

    /** @return the deployed application of that name, or null */
    public synchronized DeployedApp app(String appName) { return apps.get(appName); }

    public synchronized List<DeployedApp> apps() { return new ArrayList<>(apps.values()); }

    /** Status of every component and periodic task of every deployed application. */
    public List<ServiceStatus> services() {
        List<ServiceStatus> out = new ArrayList<>();
        for (DeployedApp a : apps()) {
            out.addAll(a.statuses());
        }
        return out;
    }

    /** Bytes of the budget the deployed applications reserved. */
    public synchronized long reservedBytes() {
        long n = 0;
        for (DeployedApp a : apps.values()) {
            n += a.reservedBytes();
        }
        return n;
    }

    /** The endpoint the RT-side proxy delivers to and polls from. */
    public CrossContextEndpoint crossContext() { return router; }

    /** Undeploys everything. */
    public void shutdown() {
        shutdown = true;
        for (DeployedApp a : apps()) {
            try {
                undeploy(a.name());
            } catch (NoSuchElementException ignored) {
                // undeployed concurrently
            }
        }
    }
}
