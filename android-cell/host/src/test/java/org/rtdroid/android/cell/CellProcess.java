package org.rtdroid.android.cell;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The real cell host as a child process (the tests never run the framework in their own JVM):
 * started with the dist's jvm.args and the module's runtime classpath, driven over its control
 * interface. The child's stdout is kept so tests can check the READY line and the logcat echo.
 */
final class CellProcess implements AutoCloseable {
    final Process process;
    final int port;
    final long startupMillis;
    final List<String> stdout;

    /** The READY line's {@code adb=N}: the adb device side's port (-1 without --adb-port). */
    int adbPort() {
        for (String line : stdout) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("^ANDROID CELL READY .* adb=(\\d+)").matcher(line);
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
        }
        return -1;
    }
    private final Thread reader;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private CellProcess(Process process, int port, long startupMillis, List<String> stdout, Thread reader) {
        this.process = process;
        this.stdout = stdout;
        this.reader = reader;
        this.port = port;
        this.startupMillis = startupMillis;
    }

    static Path dist() {
        return Paths.get(System.getProperty("cell.dist", "../target/dist"));
    }

    /**
     * The host's runtime classpath: this module's classes and dependencies, not the tests' (nor
     * the apps and the apps' library, which each app carries in its own jar: from the host's
     * class path they would be loaded once for every app, as the host's).
     */
    static String runtimeClasspath() {
        List<String> keep = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String n = e.replace('\\', '/');
            if (n.endsWith("/test-classes") || n.contains("/android-all/") || n.contains("configuration-ui")
                    || n.contains("fall-alert") || n.contains("/android-cell/content/") || n.contains("rtdroid-content")
                    || n.contains("junit-jupiter") || n.contains("junit-platform") || n.contains("surefire")
                    || n.contains("opentest4j") || n.contains("apiguardian")) {
                continue;
            }
            keep.add(e);
        }
        keep.add(dist().resolve("lib/androidx-test-monitor-1.8.0.jar").toString());
        return String.join(File.pathSeparator, keep);
    }

    static List<String> jvmArgs() throws IOException {
        List<String> out = new ArrayList<>();
        for (String line : Files.readAllLines(dist().resolve("jvm.args"))) {
            if (!line.isBlank()) {
                out.add(line.trim());
            }
        }
        return out;
    }

    static CellProcess start(Path region, String... extraArgs) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmArgs());
        // Robolectric extracts its ~200 MiB native runtime into a new temp dir per process and
        // never deletes it: give the cell one under target/, emptied at every start.
        Path tmp = Paths.get("target", "cell-tmp").toAbsolutePath();
        CellHost.deleteTree(tmp);
        Files.createDirectories(tmp);
        cmd.add("-Djava.io.tmpdir=" + tmp);
        cmd.add("-cp");
        cmd.add(runtimeClasspath());
        cmd.add("org.rtdroid.android.cell.Main");
        cmd.add("--region");
        cmd.add(region.toString());
        cmd.add("--control-port");
        cmd.add("0");
        for (String a : extraArgs) {
            cmd.add(a);
        }
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        CompletableFuture<Integer> ready = new CompletableFuture<>();
        List<String> lines = new CopyOnWriteArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                    if (line.startsWith("ANDROID CELL READY port=")) {
                        ready.complete(Integer.parseInt(line.substring("ANDROID CELL READY port=".length()).trim()
                                .split(" ")[0]));
                    }
                }
            } catch (IOException ignored) {
                // process gone
            }
            ready.completeExceptionally(new IllegalStateException("cell exited before READY: " + lines));
        }, "cell-stdout");
        reader.setDaemon(true);
        reader.start();
        int port = ready.get(180, TimeUnit.SECONDS);
        return new CellProcess(p, port, (System.nanoTime() - t0) / 1_000_000, lines, reader);
    }

    /** Waits until the child's stdout is closed (it exited) and everything was read. */
    void awaitOutputEnd() throws InterruptedException {
        reader.join(10_000);
    }

    /**
     * How many lines of the child's stdout contain {@code text}, once {@code atLeast} do or
     * {@code millis} passed: log lines can arrive after the reply that caused them, and the bound
     * is for liveness only (the caller's verdict is the count).
     */
    long linesContaining(String text, long atLeast, long millis) throws InterruptedException {
        long count = 0;
        for (long end = System.nanoTime() + millis * 1_000_000L; System.nanoTime() < end; Thread.sleep(20)) {
            count = stdout.stream().filter(l -> l.contains(text)).count();
            if (count >= atLeast) {
                break;
            }
        }
        return count;
    }

    record Reply(int status, String body) {
    }

    Reply get(String path) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        return new Reply(r.statusCode(), r.body());
    }

    byte[] getBytes(String path) throws Exception {
        HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30)).GET().build(),
                HttpResponse.BodyHandlers.ofByteArray());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(path + " -> " + r.statusCode() + " " + new String(r.body(), StandardCharsets.UTF_8));
        }
        return r.body();
    }

    Reply post(String path, String json) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
        return new Reply(r.statusCode(), r.body());
    }

    Reply delete(String path) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30)).DELETE().build(),
                HttpResponse.BodyHandlers.ofString());
        return new Reply(r.statusCode(), r.body());
    }

    /** Polls GET path until the body satisfies the predicate (or fails after timeoutMillis). */
    String await(String path, Predicate<String> ok, long timeoutMillis) throws Exception {
        long end = System.nanoTime() + timeoutMillis * 1_000_000L;
        String last = null;
        while (System.nanoTime() < end) {
            Reply r = get(path);
            last = r.status() + " " + r.body();
            if (r.status() == 200 && ok.test(r.body())) {
                return r.body();
            }
            Thread.sleep(25);
        }
        throw new AssertionError("timed out waiting on " + path + "; last answer: " + last);
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    long rssKiB() {
        try {
            for (String l : Files.readAllLines(Paths.get("/proc/" + process.pid() + "/status"))) {
                if (l.startsWith("VmRSS:")) {
                    return Long.parseLong(l.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException ignored) {
            // gone
        }
        return -1;
    }

    @Override
    public void close() throws Exception {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
