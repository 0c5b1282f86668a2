package org.rtdroid.runtime.boot;

import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.rtdroid.runtime.manifest.Manifest;
import org.rtdroid.runtime.manifest.ManifestException;
import org.rtdroid.runtime.manifest.ManifestParser;
import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.xcc.CrossContextIntent;

/**
 * Boots applications from directories ({@code <dir>/manifest.xml} + {@code <dir>/app.jar}) in this
 * JVM, without any bridge: a quick local run. Prints the status of every component and periodic
 * task once a second and drains (and counts) what the apps publish on cross-context channels.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp rtdroid-runtime.jar org.rtdroid.runtime.boot.StandaloneMain \
 *      [--seconds N] [--budget 64M] [--cpus 0-1] [--priorities 10-98] [--no-rt] [--mlock] &lt;app-dir&gt;...
 * </pre>
 * Exit code 0 when every component is still running at the end and no deadline was missed, 1 if
 * one failed or missed a deadline, 2 on bad arguments or a refused deployment.
 */
public final class StandaloneMain {
    private StandaloneMain() {}

    public static void main(String[] args) throws Exception {
        System.exit(run(args));
    }

    static int run(String[] args) throws Exception {
        long seconds = 10;
        long budget = 64L << 20;
        CpuSet cpus = null;
        int minPriority = 10;
        int maxPriority = 98;
        boolean rt = true;
        boolean mlock = false;
        List<Path> dirs = new ArrayList<>();
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--seconds" -> seconds = Long.parseLong(args[++i]);
                    case "--budget" -> budget = parseSize(args[++i]);
                    case "--cpus" -> cpus = CpuSet.parse(args[++i]);
                    case "--priorities" -> {
                        String[] p = args[++i].split("-");
                        minPriority = Integer.parseInt(p[0]);
                        maxPriority = Integer.parseInt(p[1]);
                    }
                    case "--no-rt" -> rt = false;
                    case "--mlock" -> mlock = true;
                    case "-h", "--help" -> {
                        usage();
                        return 0;
                    }
                    default -> {
                        if (args[i].startsWith("-")) {
                            throw new IllegalArgumentException("unknown option " + args[i]);
                        }
                        dirs.add(Path.of(args[i]));
                    }
                }
            }
            if (dirs.isEmpty()) {
                throw new IllegalArgumentException("give at least one application directory");
            }
        } catch (RuntimeException e) {
            System.err.println("rtdroid: " + e.getMessage());
            usage();
            return 2;
        }
        CellConfig cell = new CellConfig(cpus, budget, minPriority, maxPriority, rt, mlock, 1024);
        RuntimeHost host = RuntimeHost.start(cell);
        for (Path dir : dirs) {
            Path manifestFile = dir.resolve("manifest.xml");
            Path jar = dir.resolve("app.jar");
            Manifest manifest;
            try (InputStream in = Files.newInputStream(manifestFile)) {
                manifest = ManifestParser.parse(manifestFile.toString(), in);
            } catch (ManifestException e) {
                System.err.println("rtdroid: " + e.getMessage());
                host.shutdown();
                return 2;
            }
            URLClassLoader loader = new URLClassLoader("rtapp-" + manifest.name(), new URL[] {jar.toUri().toURL()},
                    StandaloneMain.class.getClassLoader());
            try {
                host.deploy(manifest, loader);
                System.out.printf(Locale.ROOT, "deployed %s: %d B reserved, utilization %.3f%n", manifest.name(),
                        manifest.totalScopeBytes() + manifest.totalChannelBytes(), manifest.utilization());
            } catch (DeploymentException | ManifestException e) {
                System.err.println("rtdroid: " + e.getMessage());
                host.shutdown();
                return 2;
            }
        }
        CrossContextIntent out = new CrossContextIntent();
        long outbound = 0;
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < end) {
            Thread.sleep(1000);
            while (host.crossContext().pollOutbound(out)) {
                outbound++;
            }
            printStatus(host, outbound);
        }
        boolean ok = true;
        for (ServiceStatus s : host.services()) {
            ok &= !s.state().equals("FAILED") && !s.state().equals("STOPPED") && s.deadlineMisses() == 0;
        }
        host.shutdown();
        return ok ? 0 : 1;
    }

    private static void printStatus(RuntimeHost host, long outbound) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%-52s %-10s %10s %8s %14s %8s%n", "component", "state", "releases",
                "misses", "worst late us", "fails"));
        for (ServiceStatus s : host.services()) {
            b.append(String.format(Locale.ROOT, "%-52s %-10s %10d %8d %14.1f %8d%n", s.name(), s.state(), s.releases(),
                    s.deadlineMisses(), s.worstLatenessNanos() / 1000.0, s.failures()));
            if (s.cause() != null && s.name().indexOf('/') == s.name().lastIndexOf('/')) { // component rows
                b.append("    failed: ").append(s.cause().summary()).append('\n');
            }
        }
        b.append("cross-context intents published: ").append(outbound).append('\n');
        System.out.print(b);
        System.out.flush();
    }

    private static long parseSize(String s) {
        String t = s.trim().toUpperCase(Locale.ROOT);
        long mult = t.endsWith("G") ? 1L << 30 : t.endsWith("M") ? 1L << 20 : t.endsWith("K") ? 1L << 10 : 1;
        if (mult != 1) {
            t = t.substring(0, t.length() - 1);
        }
        return Long.parseLong(t) * mult;
    }

    private static void usage() {
        System.err.println("usage: StandaloneMain [--seconds N] [--budget 64M] [--cpus 0-1] "
                + "[--priorities 10-98] [--no-rt] [--mlock] <app-dir>...\n"
                + "  each <app-dir> holds manifest.xml and app.jar (e.g. rtdroid-runtime/examples/target/apps/cochlear)");
    }
}
