package org.rtdroid.rtcell.agent;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * The cell's characterisation probes, run on request from the management ring
 * ({@code PROBE_RUN}, protocols.md "Probes"): {@code native} is the C probe {@code rtdroid-probe}
 * (seed 002: the cell's OS and CPU); {@code jvm} is RTJPerf (seed 003: the runtime's memory areas
 * and event handlers) from {@code rtjperf.jar}, in a JVM started with this one's runtime and
 * options, so that it measures the runtime the cell's applications run in. Both run as child
 * processes, which the agent kills (SIGKILL) when one outlives its bound.
 *
 * <p>Characterising the cell and running applications in it exclude each other: a probe is refused
 * ({@code BUSY}) while an application is deployed, and a deployment while a probe runs, so no
 * application's deadline ever waits for a probe. One probe runs at a time, on a thread of its own
 * (the probe sets its own threads' policies); the management loop keeps serving, and its heartbeat
 * and the RT proxy keep running (the probes leave the CPU between slices of busy work). What the
 * probe wrote comes back whole when it ends ({@link #poll}); nothing of it stays running.
 */
public final class CellProbes implements AutoCloseable {
    /** The native probe's file and the JVM probe's jar in the probes directory. */
    public static final String NATIVE = "rtdroid-probe";
    public static final String JVM_JAR = "rtjperf.jar";
    static final String JVM_MAIN = "org.rtdroid.bench.rtjperf.RtjPerf";
    /** What one probe may write: the rows of a full run are ~1 MiB at most. */
    static final int MAX_OUTPUT_BYTES = 4 * 1024 * 1024;
    /** The longest a probe may run (a full series under emulation takes minutes). */
    static final long MAX_RUN_SECONDS = 30 * 60;
    /**
     * The JVM probe's heap: RTJPerf keeps under 5 MiB live (64 arrays of 64 KiB at most), so ZGC
     * has ten times that to collect in; beside the cell's runtime (its heap locked) a larger one
     * left qemu-arm64-xen's RT cell (then 512 MiB) too little for the bound handlers' threads.
     */
    static final String JVM_HEAP = "48m";
    /**
     * The JVM probe's OOM score: the child inherits the agent's -1000 (the board's hygiene), and
     * with every process at -1000 a cell out of memory panics ("no killable processes"); the probe
     * is what the kernel must end instead.
     */
    static final String JVM_OOM_SCORE_ADJ = "1000";
    /** Unified logging's warnings and the VM's own output on stderr, not on the rows' stdout. */
    static final List<String> JVM_OUTPUT_TO_STDERR = List.of("-Xlog:disable", "-Xlog:all=warning:stderr",
            "-XX:+DisplayVMOutputToStderr");
    private static final Pattern ARG = Pattern.compile("[A-Za-z0-9._/=:,+-]{1,64}");

    /** A finished probe: its output (JSON rows) and how it ended. */
    public record Result(String kind, byte[] output, int code, String text) {}

    private final Path dir;
    private final int cpu;
    private final Consumer<String> out;
    private volatile Thread running;
    private volatile Process process;
    private volatile Result finished;
    private final long maxRunSeconds;

    /**
     * @param dir where {@value #NATIVE} and {@value #JVM_JAR} are (null: this cell has none)
     * @param cpu the cell's CPU the probes run on (the first of its CPUs)
     */
    public CellProbes(Path dir, int cpu, Consumer<String> out) {
        this(dir, cpu, out, MAX_RUN_SECONDS);
    }

    CellProbes(Path dir, int cpu, Consumer<String> out, long maxRunSeconds) {
        this.dir = dir;
        this.cpu = cpu;
        this.out = out;
        this.maxRunSeconds = maxRunSeconds;
    }

    public static CellProbes none() {
        return new CellProbes(null, 0, s -> { });
    }

    public boolean running() {
        return running != null;
    }

    /**
     * Starts probe {@code kind} with {@code args} (space-separated).
     *
     * @param appsDeployed whether an application runs in the cell now (then: BUSY)
     * @return what was started, for the console
     * @throws DeployRefusal BUSY, PROBE_UNAVAILABLE or BAD_PROBE with the reason
     */
    public synchronized String start(String kind, String args, boolean appsDeployed) throws DeployRefusal {
        if (running != null) {
            throw new DeployRefusal(ResultCode.BUSY, "a probe is running");
        }
        if (appsDeployed) {
            throw new DeployRefusal(ResultCode.BUSY, "applications are deployed: characterising needs the cell to "
                    + "itself (undeploy them first)");
        }
        List<String> argv = new ArrayList<>();
        for (String a : args.trim().split("\\s+")) {
            if (a.isEmpty()) {
                continue;
            }
            if (!ARG.matcher(a).matches() || a.startsWith("--cpu") || a.startsWith("--oom-pid")) {
                throw new DeployRefusal(ResultCode.BAD_PROBE, "probe argument '" + a + "' refused (1-64 of "
                        + "[A-Za-z0-9._/=:,+-]; the cell chooses --cpu and --oom-pid itself)");
            }
            argv.add(a);
        }
        if (argv.size() > 32) {
            throw new DeployRefusal(ResultCode.BAD_PROBE, "more than 32 probe arguments");
        }
        argv.add("--cpu");
        argv.add(Integer.toString(cpu));
        Runnable body = switch (kind) {
            case "native" -> nativeProbe(argv);
            case "jvm" -> jvmProbe(argv);
            default -> throw new DeployRefusal(ResultCode.BAD_PROBE, "probe '" + kind + "': must be native or jvm");
        };
        finished = null;
        Thread t = Thread.ofPlatform().name("rtcell-probe-" + kind).daemon(true).unstarted(body);
        running = t;
        t.start();
        return kind + " probe " + String.join(" ", argv);
    }

    private Path file(String name) throws DeployRefusal {
        if (dir == null) {
            throw new DeployRefusal(ResultCode.PROBE_UNAVAILABLE, "this cell carries no probes (the agent has no --probes)");
        }
        Path p = dir.resolve(name);
        if (!Files.isRegularFile(p)) {
            throw new DeployRefusal(ResultCode.PROBE_UNAVAILABLE, "this cell has no " + p);
        }
        return p;
    }

    private Runnable nativeProbe(List<String> argv) throws DeployRefusal {
        Path exe = file(NATIVE);
        List<String> cmd = new ArrayList<>();
        cmd.add(exe.toString());
        cmd.addAll(argv);
        return childProbe("native", cmd);
    }

    /**
     * RTJPerf in a JVM of its own, started with this JVM's runtime (its java, options and class
     * path, so it measures the runtime the cell's applications run in) and a smaller heap: a child
     * process is what the bound below can end with SIGKILL whatever its real-time threads do, and
     * what the board's teardown kills with the cell's process group.
     */
    private Runnable jvmProbe(List<String> argv) throws DeployRefusal {
        Path jar = file(JVM_JAR);
        return childProbe("jvm", jvmCommand(Path.of(System.getProperty("java.home"), "bin", "java"),
                ManagementFactory.getRuntimeMXBean().getInputArguments(),
                jvmClassPath(jar, System.getProperty("java.class.path"), out), argv));
    }

    /**
     * {@value #JVM_JAR}, the agent's class path, then the other jars beside it: the libraries its
     * benchmarks use that the agent does not carry (HdrHistogram, the examples' spark app:
     * {@code rtjperf bench reflection}), after the agent's own, so that the cell's runtime is the
     * one measured.
     */
    static String jvmClassPath(Path jar, String agentClassPath, Consumer<String> out) {
        StringBuilder cp = new StringBuilder().append(jar).append(java.io.File.pathSeparator).append(agentClassPath);
        try (var files = Files.list(jar.getParent())) {
            for (Path p : files.filter(f -> f.getFileName().toString().endsWith(".jar") && !f.equals(jar)).sorted().toList()) {
                cp.append(java.io.File.pathSeparator).append(p);
            }
        } catch (IOException e) {
            out.accept("rtcell: probe: cannot list " + jar.getParent() + ": " + e.getMessage());
        }
        return cp.toString();
    }

    /**
     * The JVM probe's command: this JVM's options but its heap's, and what the JVM itself prints
     * sent to stderr (the console): the probe's stdout is its rows, and a VM warning there (the
     * cell's safepoint timeout prints one on stdout by default) would be a row that is not JSON.
     */
    static List<String> jvmCommand(Path java, List<String> options, String classPath, List<String> argv) {
        List<String> cmd = new ArrayList<>();
        cmd.add(java.toString());
        for (String option : options) {
            if (!option.startsWith("-Xms") && !option.startsWith("-Xmx") && !option.equals("-XX:+AlwaysPreTouch")
                    && !option.startsWith("-agentlib") && !option.startsWith("-javaagent")) {
                cmd.add(option);
            }
        }
        cmd.add("-Xms" + JVM_HEAP);
        cmd.add("-Xmx" + JVM_HEAP);
        cmd.addAll(JVM_OUTPUT_TO_STDERR);
        cmd.add("-cp");
        cmd.add(classPath);
        cmd.add(JVM_MAIN);
        cmd.addAll(argv);
        return cmd;
    }

    private void killFirstWhenOutOfMemory(Process p) {
        try {
            Files.writeString(Path.of("/proc", Long.toString(p.pid()), "oom_score_adj"), JVM_OOM_SCORE_ADJ);
        } catch (IOException e) {
            out.accept("rtcell: probe: cannot raise the jvm probe's OOM score: " + e.getMessage());
        }
    }

    /** Runs {@code cmd} as a child process, its stdout the rows, its stderr the console; SIGKILL past the bound. */
    private Runnable childProbe(String kind, List<String> cmd) {
        return () -> {
            long start = System.nanoTime();
            ByteArrayOutputStream stdout = new ByteArrayOutputStream();
            try {
                Process p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                        .start();
                process = p;
                if (kind.equals("jvm")) {
                    killFirstWhenOutOfMemory(p);
                }
                Thread err = Thread.ofPlatform().name("rtcell-probe-stderr").daemon(true).start(() -> console(p.getErrorStream()));
                // The bound holds even while the probe writes nothing: a timer kills it (SIGKILL) at the bound.
                Thread reaper = Thread.ofPlatform().name("rtcell-probe-bound").daemon(true).start(() -> {
                    try {
                        if (!p.waitFor(maxRunSeconds, TimeUnit.SECONDS)) {
                            p.destroyForcibly();
                        }
                    } catch (InterruptedException e) {
                        p.destroyForcibly();
                    }
                });
                boolean overflow = copyBounded(p.getInputStream(), stdout);
                if (overflow) {
                    p.destroyForcibly();
                }
                p.waitFor();
                reaper.interrupt();
                err.join(1_000);
                boolean ended = System.nanoTime() - start < maxRunSeconds * 1_000_000_000L;
                int exit = p.exitValue();
                finish(kind, stdout.toByteArray(), overflow ? ResultCode.PROBE_FAILED : !ended ? ResultCode.PROBE_FAILED
                        : exit == 0 ? ResultCode.OK : ResultCode.PROBE_FAILED,
                        overflow ? "its output passed " + MAX_OUTPUT_BYTES + " bytes; stopped"
                                : !ended ? "it ran longer than " + maxRunSeconds + " s; stopped (SIGKILL)"
                                : "exit " + exit + " after " + seconds(start) + " s" + (exit == 0 ? "" : " (its console lines say why)"));
            } catch (IOException e) {
                finish(kind, stdout.toByteArray(), ResultCode.PROBE_FAILED, "cannot run " + cmd.get(0) + ": " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                Process p = process;
                if (p != null) {
                    p.destroyForcibly();
                }
                finish(kind, stdout.toByteArray(), ResultCode.PROBE_FAILED, "interrupted");
            } finally {
                process = null;
            }
        };
    }

    private static String seconds(long startNanos) {
        return String.format(java.util.Locale.ROOT, "%.1f", (System.nanoTime() - startNanos) / 1e9);
    }

    private void finish(String kind, byte[] output, int code, String text) {
        finished = new Result(kind, output, code, text);
        running = null;
    }

    /** The result of a probe that ended since the last call, or null. */
    public Result poll() {
        Result r = finished;
        if (r != null) {
            finished = null;
        }
        return r;
    }

    private static boolean copyBounded(InputStream in, ByteArrayOutputStream to) throws IOException {
        byte[] buf = new byte[8192];
        int n;
        while ((n = in.read(buf)) > 0) {
            if (to.size() + n > MAX_OUTPUT_BYTES) {
                return true;
            }
            to.write(buf, 0, n);
        }
        return false;
    }

    private void console(InputStream err) {
        try (var r = new java.io.BufferedReader(new java.io.InputStreamReader(err, StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                out.accept("rtcell: probe: " + line);
            }
        } catch (IOException ignored) {
            // the probe ended
        }
    }

    /** Stops a running probe (agent shutdown): SIGKILL. */
    @Override
    public void close() {
        Process p = process;
        if (p != null) {
            p.destroyForcibly();
        }
    }
}
