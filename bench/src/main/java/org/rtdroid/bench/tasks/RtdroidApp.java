package org.rtdroid.bench.tasks;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.UnaryOperator;
import org.rtdroid.runtime.boot.CellConfig;
import org.rtdroid.runtime.boot.DeployedApp;
import org.rtdroid.runtime.boot.RuntimeHost;
import org.rtdroid.runtime.manifest.ManifestParser;
import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.reflection.ExecutedInterval;
import org.rtdroid.runtime.reflection.PastTimeline;

/**
 * Table 4.2's "RTDroid" column: an example app deployed from its built layout
 * (rtdroid-runtime/examples/target/apps/&lt;app&gt;/{app.jar,manifest.xml}) into a {@link RuntimeHost}
 * pinned to the bench CPU (SCHED_FIFO where permitted), as the RT cell runs it: in a class loader of
 * its own that takes the app jar's classes (its logic included) before the bench's, so that the
 * app's code and the RTSJ-style baseline's copy of the same logic are separate classes with JIT
 * profiles of their own, as in separate JVMs. The measured task's jobs are read from its past timeline (the runtime records every
 * job's release, begin and end), which keeps the last {@code PAST_JOBS} jobs: it is read every
 * 50 ms, well within that.
 */
public final class RtdroidApp implements AutoCloseable {
    private final RuntimeHost host;
    private final String app;
    private final DeployedApp deployed;

    /** The app jar's classes first, then the bench's (the runtime's among them). */
    static final class AppLoader extends URLClassLoader {
        AppLoader(Path jar, ClassLoader parent) throws java.net.MalformedURLException {
            super(new URL[] {jar.toUri().toURL()}, parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null && findResource(name.replace('.', '/') + ".class") != null) {
                    c = findClass(name);
                }
                if (c == null) {
                    return super.loadClass(name, resolve);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }
    }

    /** @param apps the examples' built apps (rtdroid-runtime/examples/target/apps) */
    public RtdroidApp(CpuSet cpu, Path apps, String app) throws Exception {
        this(cpu, apps, app, UnaryOperator.identity());
    }

    /**
     * @param edit what the benchmark changes in the app's manifest before it is parsed (e.g. room
     *     for more sensor listeners than the app declares); the parser validates the result as any
     */
    public RtdroidApp(CpuSet cpu, Path apps, String app, UnaryOperator<String> edit) throws Exception {
        this.app = app;
        Path dir = apps.resolve(app);
        Path file = dir.resolve("manifest.xml");
        Path jar = dir.resolve("app.jar");
        if (!Files.isRegularFile(file) || !Files.isRegularFile(jar)) {
            throw new IllegalArgumentException("no " + jar + " and manifest.xml: build the examples (make java), run from"
                    + " the source tree or set -Drtdroid.home");
        }
        host = RuntimeHost.start(new CellConfig(cpu, 64L << 20, 1, 98));
        byte[] manifest = edit.apply(Files.readString(file)).getBytes(StandardCharsets.UTF_8);
        try (InputStream in = new ByteArrayInputStream(manifest)) {
            deployed = host.deploy(ManifestParser.parse(file.toString(), in), new AppLoader(jar, RtdroidApp.class.getClassLoader()));
        } catch (Exception e) {
            host.shutdown();
            throw e;
        }
    }

    public DeployedApp deployed() {
        return deployed;
    }

    /** Reads the jobs of {@code component}'s task {@code task} into {@code into} until it has its releases. */
    public void collect(String component, String task, TaskDurations into, long giveUpNanos) throws InterruptedException {
        PastTimeline past = deployed.componentRuntime(component).tasks().stream()
                .filter(t -> t.decl().name().equals(task)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(component + " has no task " + task))
                .jobs().past();
        ExecutedInterval job = new ExecutedInterval();
        long next = past.recorded();
        long giveUp = System.nanoTime() + giveUpNanos;
        while (!into.done()) {
            if (System.nanoTime() > giveUp) {
                throw new IllegalStateException(app + ": " + task + " recorded " + into.count() + " releases before the bound");
            }
            Thread.sleep(50);
            long recorded = past.recorded();
            if (recorded - next > past.capacity()) {
                throw new IllegalStateException(app + ": " + task + "'s past timeline was overwritten before it was read");
            }
            for (; next < recorded && !into.done(); next++) {
                if (past.read(next, job) && !job.has(PastTimeline.SKIPPED)) {
                    into.record(job.plannedBeginNanos(), job.actualBeginNanos(), job.actualEndNanos());
                }
            }
        }
    }

    @Override
    public void close() {
        try {
            host.undeploy(app);
        } finally {
            host.shutdown();
        }
    }
}
