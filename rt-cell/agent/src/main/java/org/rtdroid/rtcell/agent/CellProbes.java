package org.rtdroid.rtcell.agent;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.URL;
import java.net.URLClassLoader;
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
 * (seed 002: the cell's OS and CPU), run as a child process; {@code jvm} is RTJPerf (seed 003:
 * the runtime's memory areas and event handlers), loaded from {@code rtjperf.jar} into this JVM,
 * so that it measures the runtime the cell's applications run in.
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
    private static final Pattern ARG = Pattern.compile("[A-Za-z0-9._/=:,+-]{1,64}");

    /** A finished probe: its output (JSON rows) and how it ended. */
    public record Result(String kind, byte[] output, int code, String text) {}

    private final Path dir;
    private final int cpu;
    private final Consumer<String> out;
    private volatile Thread running;
    private volatile Process process;
    private volatile Result finished;

    /**
     * @param dir where {@value #NATIVE} and {@value #JVM_JAR} are (null: this cell has none)
     * @param cpu the cell's CPU the probes run on (the first of its CPUs)
     */
    public CellProbes(Path dir, int cpu, Consumer<String> out) {
        this.dir = dir;
        this.cpu = cpu;
        this.out = out;
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
        return () -> {
            long start = System.nanoTime();
            ByteArrayOutputStream stdout = new ByteArrayOutputStream();
            try {
                Process p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                        .start();
                process = p;
                Thread err = Thread.ofPlatform().name("rtcell-probe-stderr").daemon(true).start(() -> console(p.getErrorStream()));
                boolean overflow = copyBounded(p.getInputStream(), stdout);
                if (overflow) {
                    p.destroyForcibly();
                }
                boolean ended = p.waitFor(MAX_RUN_SECONDS, TimeUnit.SECONDS);
                if (!ended) {
                    p.destroyForcibly();
                    p.waitFor();
                }
                err.join(1_000);
                int exit = p.exitValue();
                finish("native", stdout.toByteArray(), overflow ? ResultCode.PROBE_FAILED : !ended ? ResultCode.PROBE_FAILED
                        : exit == 0 ? ResultCode.OK : ResultCode.PROBE_FAILED,
                        overflow ? "its output passed " + MAX_OUTPUT_BYTES + " bytes; stopped"
                                : !ended ? "it ran longer than " + MAX_RUN_SECONDS + " s; stopped"
                                : "exit " + exit + " after " + seconds(start) + " s" + (exit == 0 ? "" : " (its console lines say why)"));
            } catch (IOException e) {
                finish("native", stdout.toByteArray(), ResultCode.PROBE_FAILED, "cannot run " + cmd.get(0) + ": " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                finish("native", stdout.toByteArray(), ResultCode.PROBE_FAILED, "interrupted");
            } finally {
                process = null;
            }
        };
    }

    private Runnable jvmProbe(List<String> argv) throws DeployRefusal {
        Path jar = file(JVM_JAR);
        return () -> {
            long start = System.nanoTime();
            ByteArrayOutputStream rows = new ByteArrayOutputStream();
            try (URLClassLoader loader = new URLClassLoader("rtjperf", new URL[] {jar.toUri().toURL()},
                    CellProbes.class.getClassLoader());
                 PrintStream rowsOut = new PrintStream(rows, true, StandardCharsets.UTF_8);
                 PrintStream progress = new PrintStream(new LineConsole(), true, StandardCharsets.UTF_8)) {
                Class<?> main = Class.forName(JVM_MAIN, true, loader);
                MethodHandle run = MethodHandles.publicLookup().findStatic(main, "run",
                        MethodType.methodType(int.class, String[].class, PrintStream.class, PrintStream.class));
                int exit = (int) run.invokeExact(argv.toArray(new String[0]), rowsOut, progress);
                rowsOut.flush();
                finish("jvm", rows.toByteArray(), exit == 0 ? ResultCode.OK : ResultCode.PROBE_FAILED,
                        "exit " + exit + " after " + seconds(start) + " s");
            } catch (Throwable e) {
                // A probe is not the cell's work: whatever it throws ends the probe, never the agent.
                finish("jvm", rows.toByteArray(), ResultCode.PROBE_FAILED, "RTJPerf failed: " + e);
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

    /** The JVM probe's progress lines to the console. */
    private final class LineConsole extends java.io.OutputStream {
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        @Override
        public void write(int b) {
            if (b == '\n') {
                out.accept("rtcell: probe: " + line.toString(StandardCharsets.UTF_8));
                line.reset();
            } else if (line.size() < 1024) {
                line.write(b);
            }
        }
    }

    /** Stops a running native probe (agent shutdown). */
    @Override
    public void close() {
        Process p = process;
        if (p != null) {
            p.destroyForcibly();
        }
    }
}
