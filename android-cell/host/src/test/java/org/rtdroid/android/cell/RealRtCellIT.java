package org.rtdroid.android.cell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end with no fake on either side: the real RT cell agent (rt-cell/agent, RTDroid runtime)
 * with the echo and cochlear example apps deployed as signed bundles, and the real cell host, on
 * one /dev/shm region. Clicks in the ConfigurationUI must come back from the RT cell into the
 * UI's text. Writes the measured round trips to target/real-rt-latency.json.
 *
 * <p>Needs the agent's runnable layout and the example bundles' inputs, which the full build
 * ({@code mvn install} from the repository root) makes before this module; when they are absent
 * (a build of this module alone) the test is skipped and says so.
 */
class RealRtCellIT {
    static final String UI = "org.rtdroid.cochlear.ui";
    static final int PINGS = 40;

    @TempDir
    Path tmp;

    static Path repo() {
        String r = System.getProperty("cell.repo");
        Path p = r != null && !r.isEmpty() ? Paths.get(r) : Paths.get("../..");
        return p.toAbsolutePath().normalize();
    }

    @Test
    void pingAndSettingsRoundTripThroughTheRealRtCell() throws Exception {
        Path repo = repo();
        Path agentLib = repo.resolve("rt-cell/agent/target/dist/lib");
        Path examples = repo.resolve("rtdroid-runtime/examples/target/apps");
        assumeTrue(Files.isDirectory(agentLib) && Files.isRegularFile(examples.resolve("echo/app.jar"))
                        && Files.isRegularFile(examples.resolve("cochlear/app.jar")),
                "RT cell agent (" + agentLib + ") or example apps (" + examples + ") not built: "
                        + "run the full build (mvn install from the repository root)");

        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        String agentCp = agentLib.toString() + "/*";
        // Keys and bundles as a user makes them: the rtdroid CLI.
        String rtdroid = repo.resolve("build/venv/bin/rtdroid").toString();
        assumeTrue(Files.isExecutable(Paths.get(rtdroid)), "rtdroid CLI (" + rtdroid + ") not set up: run tools/setup.sh");
        run(List.of(rtdroid, "keys", "--dir", tmp.resolve("keys").toString()));
        Path deploy = Files.createDirectories(tmp.resolve("deploy"));
        for (String app : List.of("echo", "cochlear")) {
            run(List.of(rtdroid, "bundle",
                    "--manifest", examples.resolve(app + "/manifest.xml").toString(),
                    "--jar", examples.resolve(app + "/app.jar").toString(),
                    "--key", tmp.resolve("keys/deploy.key").toString(),
                    "--output", deploy.resolve(app + ".rtb").toString()));
        }

        Path region = Paths.get("/dev/shm/android-cell-it-" + ProcessHandle.current().pid());
        TestRtPeer.format(region);
        Process agent = null;
        CellProcess cell = null;
        try {
            List<String> agentOut = new CopyOnWriteArrayList<>();
            agent = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-XX:+UseZGC", "-Xms256m",
                    "-Xmx256m", "-cp", agentCp, "org.rtdroid.rtcell.agent.Main", "--region", region.toString(),
                    "--deploy-key", tmp.resolve("keys/deploy.pub").toString(), "--cpus", "1",
                    "--budget-bytes", "64M", "--deploy", deploy.toString())
                    .redirectErrorStream(true).start();
            awaitLine(agent, agentOut, "RTCELL READY", 120);

            cell = CellProcess.start(region);
            assertEquals(200, cell.post("/apps/install", "{\"bundle\":\""
                    + Bundles.configurationUi(Files.createDirectories(tmp.resolve("ui"))) + "\"}").status());
            assertEquals(200, cell.post("/apps/" + UI + "/launch", "").status());
            cell.await("/proxy/stats", b -> b.contains("\"connected\":true"), 20_000);

            // The cochlear ProcessingService reports status every 200 ms: it must reach the UI.
            cell.await("/ui/text?id=releases", b -> !b.contains("\"text\":\"–\""), 20_000);

            cell.get("/latency"); // (warm-up pings below are measured too; they are all real)
            for (int i = 1; i <= PINGS; i++) {
                assertEquals(200, cell.post("/ui/click", "{\"id\":\"ping\"}").status());
                final int n = i;
                try {
                    cell.await("/ui/text?id=ping_result", b -> b.contains("Pong #" + n + " in"), 10_000);
                } catch (AssertionError e) {
                    // Say why: a stalled RT heartbeat (e.g. a SCHED_FIFO hog on the RT cell's CPU
                    // starving its proxy thread) makes the proxy refuse, and the stats say so.
                    throw new AssertionError(e.getMessage() + "; proxy: " + cell.get("/proxy/stats").body()
                            + "; RT cell: " + agentOut, e);
                }
            }
            assertEquals(200, cell.post("/ui/seekbar", "{\"id\":\"volume\",\"progress\":42}").status());
            cell.await("/ui/text?id=applied", b -> b.contains("Applied: volume 42"), 10_000);
            assertEquals(200, cell.post("/ui/switch", "{\"id\":\"noise_reduction\",\"checked\":true}").status());
            cell.await("/ui/text?id=applied", b -> b.contains("Applied: volume 42, noise reduction on"), 10_000);

            String latency = cell.get("/latency").body();
            assertTrue(latency.contains("\"roundTrip\":{\"n\":"), latency);
            Files.createDirectories(Paths.get("target"));
            Files.writeString(Paths.get("target/real-rt-latency.json"), latency);
            byte[] png = cell.getBytes("/screenshot");
            Files.createDirectories(Paths.get("target/screenshots"));
            Files.write(Paths.get("target/screenshots/configuration-ui-real-rt.png"), png);
            String summary = latency.substring(latency.indexOf("\"summary\""), latency.indexOf(",\"roundTrip\":["));
            System.out.println("[android-cell] real RT cell round trips (ns): " + summary);
            String stats = cell.get("/proxy/stats").body();
            assertTrue(stats.contains("\"refused\":0"), stats);
        } finally {
            if (cell != null) {
                cell.close();
            }
            if (agent != null) {
                agent.toHandle().destroy();
                if (!agent.waitFor(20, TimeUnit.SECONDS)) {
                    agent.destroyForcibly();
                }
            }
            Files.deleteIfExists(region);
            Files.deleteIfExists(Paths.get(region + ".lock"));
        }
    }

    private static void run(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "timed out: " + cmd);
        assertEquals(0, p.exitValue(), cmd + " failed: " + out);
    }

    private static void awaitLine(Process p, List<String> lines, String want, int seconds) throws Exception {
        CompletableFuture<Void> seen = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                    System.out.println("[rt-cell] " + line);
                    if (line.contains(want)) {
                        seen.complete(null);
                    }
                }
            } catch (java.io.IOException ignored) {
                // agent gone
            }
            seen.completeExceptionally(new AssertionError("RT cell agent exited before '" + want + "': " + lines));
        }, "rt-cell-stdout");
        t.setDaemon(true);
        t.start();
        seen.get(seconds, TimeUnit.SECONDS);
    }
}
