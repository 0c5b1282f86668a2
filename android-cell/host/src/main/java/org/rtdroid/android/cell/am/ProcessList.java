package org.rtdroid.android.cell.am;

import org.rtdroid.android.cell.os.CellException;
import org.rtdroid.android.cell.os.CellLog;
import org.rtdroid.android.cell.os.Posix;
import org.rtdroid.android.cell.pm.InstalledApp;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The app processes (AOSP's {@code ProcessList}): for each app named at the cell's start, a JVM of
 * its own that the system server starts on first use, that becomes the app's Linux uid before any
 * of the app's code runs (zygote's specialisation, {@code Posix.becomeApp}) and that attaches
 * over the system server's IPC, where the kernel names it. The system server then calls it on
 * that connection ({@link ApplicationThread}). A process that died is shown with its reason and
 * started again on the next use. Apps not named here (when not every app is, {@link #EVERY_APP})
 * run in the system server's JVM.
 */
public final class ProcessList {
    static final String TAG = "ActivityManager";
    /** Names every app (not a package name: those hold a dot), as Android runs each in its own process. */
    public static final String EVERY_APP = "all";
    /** The app process's entry point, on the system server's own class path. */
    static final String APP_PROCESS_MAIN = "org.rtdroid.android.cell.AppProcessMain";
    static final long ATTACH_TIMEOUT_MILLIS = 180_000;

    public enum State { STARTING, RUNNING, DIED }

    /** One app's process: what {@code dumpsys activity processes} shows. */
    public static final class ProcessRecord {
        public final InstalledApp app;
        public volatile State state = State.STARTING;
        public volatile long pid = -1;
        public volatile int starts;
        /** Why the last process ended (null while none did). */
        public volatile String deathReason;
        /** Its last launch: from the request to the first frame drawn, process start included. */
        public volatile long lastLaunchMillis = -1;
        public volatile boolean lastLaunchCold;
        Process process;
        ApplicationThread thread;
        boolean killedBySystem;
        String killReason;

        ProcessRecord(InstalledApp app) {
            this.app = app;
        }
    }

    private final Set<String> packages;
    private final Path binderSocket;
    private final Path frameworkDir;
    private final Map<String, ProcessRecord> records = new LinkedHashMap<>();
    private final Map<String, String> published = new java.util.HashMap<>();
    private final Map<String, java.util.concurrent.ExecutorService> dispatchers = new java.util.HashMap<>();
    private volatile Template spare;
    private volatile java.util.function.Consumer<InstalledApp> onDeath = app -> { };

    /** Called when an app's process ended (its registrations with the system server go). */
    public void onDeath(java.util.function.Consumer<InstalledApp> action) {
        onDeath = action;
    }
    private boolean shutDown;

    /**
     * {@code frameworkDir}: where the system server publishes, for the apps' uids, the files an
     * app process reads that sit behind a folder only root may enter (a 0700 clone, a private
     * home's Maven repository), as {@code /system/framework} is readable by every app.
     */
    public ProcessList(Set<String> packages, Path binderSocket, Path frameworkDir) {
        this.packages = Set.copyOf(packages);
        this.binderSocket = binderSocket;
        this.frameworkDir = frameworkDir;
    }

    /** Whether the app runs in a process of its own. */
    public boolean hosts(String pkg) {
        return packages.contains(pkg) || packages.contains(EVERY_APP);
    }

    /** Whether every app runs in a process of its own (none in the system server's JVM). */
    public boolean hostsEveryApp() {
        return packages.contains(EVERY_APP);
    }

    public synchronized List<ProcessRecord> records() {
        return new ArrayList<>(records.values());
    }

    /**
     * Launches the app's activity ({@code cls}, null: its launcher) in its process, starting the
     * process first when it has none: from any thread but the main looper (a start takes
     * seconds). The activity's class name.
     */
    public String launch(InstalledApp app, String cls) throws CellException {
        String activity = cls != null ? cls : app.bundle.launcher.className();
        if (app.bundle.activities.stream().noneMatch(a -> a.className().equals(activity))) {
            throw new CellException(404, "no activity " + activity + " declared by " + app.packageName);
        }
        long t0 = System.nanoTime();
        ProcessRecord r;
        boolean cold;
        synchronized (this) {
            r = records.get(app.packageName);
            cold = r == null || r.state == State.DIED || r.app != app;
            r = ensure(app, "launch");
        }
        ApplicationThread thread = awaitAttach(r);
        String reply;
        try {
            reply = thread.call("launch\nactivity=" + activity);
        } catch (IOException e) {
            throw new CellException(500, app.packageName + "'s process (pid " + r.pid + ") went away during the launch");
        }
        if (!reply.startsWith("OK")) {
            throw new CellException(500, app.packageName + " did not launch " + activity + ": " + reply);
        }
        r.lastLaunchMillis = (System.nanoTime() - t0) / 1_000_000;
        r.lastLaunchCold = cold;
        if (cold) {
            preStart(); // the next app process's framework loads while this app is in use
        }
        CellLog.i(TAG, "Displayed " + app.packageName + "/" + activity + " in pid " + r.pid + ": +"
                + r.lastLaunchMillis + "ms (" + (cold ? "cold: process start included" : "warm") + ")");
        return activity;
    }

    /**
     * The app's process, started when it has none ({@code why}: the use that needs it, a launch,
     * a broadcast, a service), not yet necessarily attached.
     */
    private synchronized ProcessRecord ensure(InstalledApp app, String why) throws CellException {
        ProcessRecord r = records.get(app.packageName);
        if (r == null || r.state == State.DIED || r.app != app) {
            r = start(app, r, why);
        }
        return r;
    }

    /**
     * Calls the app's process (a broadcast to one of its receivers, a start of or binding to one
     * of its services), starting it first when it has none, as AOSP's ActivityManager does for a
     * broadcast or a binding: on the app's own dispatch thread, in the order asked, never on the
     * caller's (a start takes seconds; the main looper and the broadcast queue do not wait).
     * The future has the process's reply, or fails with why the call could not be made.
     */
    public java.util.concurrent.CompletableFuture<String> post(InstalledApp app, String why, String request) {
        java.util.concurrent.CompletableFuture<String> f = new java.util.concurrent.CompletableFuture<>();
        try {
            dispatcher(app).execute(() -> {
                try {
                    long dispatched = System.nanoTime();
                    String reply = callNow(app, why, request);
                    f.complete(reply.startsWith("OK") ? reply + "\ndispatchNanos=" + dispatched : reply);
                } catch (Throwable t) {
                    f.completeExceptionally(t);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            f.completeExceptionally(new CellException(500, "the system server is stopping"));
        }
        return f;
    }

    /**
     * Another app's activity came on top of this app's: its running process pauses and stops its
     * activity, on the app's dispatch thread after the calls before it (a process that is not
     * running has no activity to pause: none is started for it).
     */
    public void pauseActivity(InstalledApp app) {
        try {
            dispatcher(app).execute(() -> {
                try {
                    callRunning(app, "pause");
                } catch (CellException e) {
                    // it ended meanwhile: its activity went with it
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // the system server is stopping: every process goes
        }
    }

    /** The app's dispatch thread: its process's calls in the order asked. */
    private synchronized java.util.concurrent.ExecutorService dispatcher(InstalledApp app) {
        return dispatchers.computeIfAbsent(app.packageName, k -> java.util.concurrent.Executors.newSingleThreadExecutor(
                task -> {
                    Thread t = new Thread(task, "proc-dispatch-" + k);
                    t.setDaemon(true);
                    return t;
                }));
    }

    /** A call on the caller's thread (not the main looper): the process started and attached first. */
    public String callNow(InstalledApp app, String why, String request) throws CellException {
        boolean cold;
        ProcessRecord r;
        synchronized (this) {
            r = records.get(app.packageName);
            cold = r == null || r.state == State.DIED || r.app != app;
            r = ensure(app, why);
        }
        ApplicationThread thread = awaitAttach(r);
        try {
            return thread.call(request);
        } catch (IOException e) {
            throw new CellException(500, app.packageName + "'s process (pid " + r.pid + ") went away: " + e.getMessage());
        } finally {
            if (cold) {
                preStart(); // the spare went to this process: the next one loads while this app works
            }
        }
    }

    /**
     * A call to the app's running process only (a binder transaction: a binder of a process that
     * died is dead, it does not start a new one).
     */
    String callRunning(InstalledApp app, long startedAs, String request) throws IOException {
        ProcessRecord r;
        synchronized (this) {
            r = records.get(app.packageName);
        }
        if (r == null || r.state != State.RUNNING || r.app != app || r.pid != startedAs) {
            throw new IOException(app.packageName + "'s process that held the binder died");
        }
        return r.thread.call(request);
    }

    /**
     * A call to the app's running process on the caller's thread, never starting one (UI
     * automation on its activity: a process that died took its activity with it).
     */
    public String callRunning(InstalledApp app, String request) throws CellException {
        ProcessRecord r;
        synchronized (this) {
            r = records.get(app.packageName);
        }
        if (r == null || r.state != State.RUNNING || r.app != app) {
            throw new CellException(409, app.packageName + " has no running process"
                    + (r != null && r.deathReason != null ? " (its last: " + r.deathReason + ")" : ""));
        }
        try {
            return r.thread.call(request);
        } catch (IOException e) {
            throw new CellException(500, app.packageName + "'s process (pid " + r.pid + ") went away: " + e.getMessage());
        }
    }

    /** The pid of the app's running process, -1 when it has none. */
    public synchronized long runningPid(InstalledApp app) {
        ProcessRecord r = records.get(app.packageName);
        return r != null && r.state == State.RUNNING && r.app == app ? r.pid : -1;
    }

    /** Starts a process for the app (under the list's lock). */
    private ProcessRecord start(InstalledApp app, ProcessRecord previous, String why) throws CellException {
        if (Posix.geteuid() != 0) {
            throw new CellException(500, "cannot start " + app.packageName + "'s process: it must run as the app's uid "
                    + app.uid + ", which needs the system server to be root");
        }
        ProcessRecord r = new ProcessRecord(app);
        if (previous != null && previous.app == app) {
            r.starts = previous.starts;
            r.deathReason = previous.deathReason;
        }
        Template t = spare;
        spare = null;
        boolean preStarted = t != null && t.process.isAlive();
        if (!preStarted) {
            t = startTemplate();
        }
        r.process = t.process;
        r.pid = t.process.pid();
        r.starts++;
        foreground(r.pid); // wanted now: at the system server's priority, whether loading or waiting
        records.put(app.packageName, r);
        CellLog.i(TAG, "Start proc " + r.pid + ":" + app.packageName + "/u0a" + (app.uid - 10000) + " for "
                + why + (r.starts == 1 ? "" : " (after: " + r.deathReason + ")")
                + (preStarted ? " (a pre-started template)" : ""));
        t.record = r;
        try {
            // what the template becomes: its one line on stdin (validated again there)
            t.process.getOutputStream().write(("specialize package=" + app.packageName + " uid=" + app.uid + " code="
                    + app.codeJar() + " data=" + app.dataDir + "\n").getBytes(StandardCharsets.UTF_8));
            t.process.getOutputStream().flush();
        } catch (IOException e) {
            t.process.destroyForcibly();
            throw new CellException(500, "cannot hand " + app.packageName + " to process " + r.pid + ": " + e.getMessage());
        }
        return r;
    }

    /**
     * A template process (zygote's role): the framework up and the jars open as root, waiting on
     * its stdin for the app it becomes. Its output goes to logcat under the app it became.
     */
    private Template startTemplate() throws CellException {
        Process p;
        try {
            List<String> cmd = command();
            if (java.nio.file.Files.isExecutable(CHRT)) {
                // A template loads what may never be asked for: SCHED_IDLE, so that its seconds of
                // start-up on the cell's CPU take only time nothing else wants (the board's start,
                // an app's round trips); it becomes SCHED_OTHER when an app is given to it.
                cmd.addAll(0, List.of(CHRT.toString(), "--idle", "0"));
            }
            p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new CellException(500, "cannot start an app process: " + e.getMessage());
        }
        Template t = new Template(p);
        Thread out = new Thread(() -> echo(t), "proc-" + p.pid() + "-out");
        out.setDaemon(true);
        out.start();
        p.onExit().thenAccept(x -> {
            ProcessRecord r = t.record;
            if (r != null) {
                died(r, x.exitValue());
            } else {
                CellLog.w(TAG, "the pre-started app process " + p.pid() + " ended unused (status " + x.exitValue() + ")");
            }
        });
        return t;
    }

    /**
     * Starts a template for the next app process, once the cell is ready and after each use, so
     * that a launch finds the framework already up (no-op when no app runs in its own process).
     */
    public synchronized void preStart() {
        if (packages.isEmpty() || spare != null || shutDown || Posix.geteuid() != 0) {
            return;
        }
        try {
            spare = startTemplate();
            CellLog.i(TAG, "pre-started app process " + spare.process.pid() + " (framework loading; it waits for its app)");
        } catch (CellException e) {
            CellLog.w(TAG, e.getMessage());
        }
    }

    /** util-linux's chrt (Debian: essential), which starts the template at SCHED_IDLE. */
    private static final Path CHRT = Paths.get("/usr/bin/chrt");

    /**
     * Every thread of the process to SCHED_OTHER (the system server is root): twice, for a thread
     * an idle one started while the first pass ran.
     */
    private static void foreground(long pid) {
        for (int pass = 0; pass < 2; pass++) {
            try (java.util.stream.Stream<Path> tasks = java.nio.file.Files.list(Paths.get("/proc/" + pid + "/task"))) {
                tasks.forEach(t -> org.rtdroid.android.cell.os.RealtimeScheduling.set(
                        Integer.parseInt(t.getFileName().toString()), org.rtdroid.android.cell.os.RealtimeScheduling.SCHED_OTHER, 0));
            } catch (IOException | RuntimeException e) {
                CellLog.w(TAG, "cannot raise process " + pid + " to SCHED_OTHER: " + e.getMessage());
                return;
            }
        }
    }

    /** A process started before its app is known; {@code record} once it became one. */
    private static final class Template {
        final Process process;
        volatile ProcessRecord record;

        Template(Process process) {
            this.process = process;
        }
    }

    /**
     * The app process's command: this JVM's own java, options (jvm.args and, on a board, the AOT
     * cache: its classes are the framework's, the same class path) and class path, so the app
     * process loads the same framework classes the system server does.
     */
    private List<String> command() {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse(Paths.get(System.getProperty("java.home"), "bin", "java").toString()));
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            // a training run's recording or a debugger belong to the system server only; the
            // temporary files are the app's own (its cache directory)
            if (a.startsWith("-XX:AOTCacheOutput") || a.startsWith("-XX:AOTMode") || a.startsWith("-XX:AOTConfiguration")
                    || a.startsWith("-agentlib:") || a.startsWith("-Xlog") || a.startsWith("-Djava.io.tmpdir=")) {
                continue;
            }
            int eq = a.indexOf('=');
            cmd.add(a.startsWith("-D") && eq > 0 && a.charAt(eq + 1) == '/'
                    ? a.substring(0, eq + 1) + readable(a.substring(eq + 1)) : a);
        }
        cmd.add("-Djava.io.tmpdir=" + sharedTmp());
        List<String> classPath = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            classPath.add(readable(e));
        }
        cmd.add("-cp");
        cmd.add(String.join(java.io.File.pathSeparator, classPath));
        cmd.add(APP_PROCESS_MAIN);
        cmd.addAll(List.of("--binder", binderSocket.toString()));
        return cmd;
    }

    /**
     * The app processes' temporary folder while they start: the framework writes there as root
     * before a process becomes its app (the app then uses its own cache folder); sticky, as /tmp.
     */
    private String sharedTmp() {
        Path tmp = frameworkDir.resolveSibling("app-tmp");
        try {
            java.nio.file.Files.createDirectories(tmp);
            java.nio.file.Files.setAttribute(tmp, "unix:mode", 01777); // sticky: no app removes another's files
        } catch (IOException | UnsupportedOperationException e) {
            CellLog.w(TAG, "cannot make " + tmp + ": " + e.getMessage());
        }
        return tmp.toString();
    }

    /**
     * A file or folder the app process reads, at a path its uid can reach: the path itself when
     * every folder above it lets others through (a board's checkout: the AOT cache then matches
     * the class path), else a copy made of hard links (a copy where links cannot cross file
     * systems) under the framework folder, made once.
     */
    private String readable(String path) {
        Path p = Paths.get(path).toAbsolutePath().normalize();
        if (!java.nio.file.Files.exists(p) || othersReach(p)) {
            return path;
        }
        return published.computeIfAbsent(p.toString(), k -> {
            Path to = frameworkDir.resolve(published.size() + "-" + p.getFileName());
            try {
                publish(p, to);
            } catch (IOException e) {
                CellLog.w(TAG, "cannot publish " + p + " for the app processes: " + e.getMessage());
                return path;
            }
            return to.toString();
        });
    }

    private static boolean othersReach(Path p) {
        try {
            if (!java.nio.file.Files.getPosixFilePermissions(p).contains(java.nio.file.attribute.PosixFilePermission.OTHERS_READ)) {
                return false;
            }
            for (Path d = p.getParent(); d != null; d = d.getParent()) {
                if (!java.nio.file.Files.getPosixFilePermissions(d).contains(java.nio.file.attribute.PosixFilePermission.OTHERS_EXECUTE)) {
                    return false;
                }
            }
            return true;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    private static void publish(Path from, Path to) throws IOException {
        java.nio.file.Files.createDirectories(to.getParent());
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Path t = to.resolve(from.relativize(f).toString());
                if (java.nio.file.Files.isDirectory(f)) {
                    java.nio.file.Files.createDirectories(t);
                    continue;
                }
                try {
                    java.nio.file.Files.createLink(t, f);
                } catch (IOException | UnsupportedOperationException e) {
                    java.nio.file.Files.copy(f, t);
                }
            }
        }
    }

    /** A line of an app process's logcat: time, priority, tag, package, message. */
    private static final java.util.regex.Pattern LOG_LINE = java.util.regex.Pattern.compile(
            "\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} ([VDIWEF])/([^(]{1,64})\\([^)]*\\): (.*)");

    /**
     * A process's output, to the system server's log under the app it became: its own log lines
     * as they are (as an app's go to logd on a device), under the app the system server started
     * it as (not the package the line names); anything else as the process's output.
     */
    private static void echo(Template t) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(t.process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                ProcessRecord r = t.record;
                java.util.regex.Matcher m = LOG_LINE.matcher(line);
                if (r != null && m.matches()) {
                    CellLog.log(m.group(1).charAt(0), m.group(2), r.app.packageName, m.group(3), null);
                    continue;
                }
                CellLog.log('I', "Process", r == null ? "android" : r.app.packageName, "pid " + t.process.pid() + ": " + line, null);
            }
        } catch (IOException ignored) {
            // the process is gone
        }
    }

    private void died(ProcessRecord r, int status) {
        String reason;
        synchronized (this) {
            if (r.killedBySystem) {
                reason = r.killReason;
            } else if (status == 10) { // AppProcessHost.EXIT_CRASHED
                reason = "crashed: its app code threw (FATAL EXCEPTION in logcat)";
            } else if (status > 128) {
                reason = "killed by signal " + (status - 128) + (status - 128 == 9 ? " (SIGKILL)" : status - 128 == 15 ? " (SIGTERM)" : "");
            } else {
                reason = "exited with status " + status;
            }
            r.deathReason = reason;
            r.state = State.DIED;
            if (r.thread != null) {
                r.thread.close();
            }
            notifyAll();
        }
        onDeath.accept(r.app);
        CellLog.log('I', TAG, r.app.packageName, "Process " + r.app.packageName + " (pid " + r.pid + ") has died: "
                + reason, null);
    }

    /**
     * An app process attaches (from the IPC: the kernel's uid is the app's, the kernel's pid must be
     * the process the system server started for it). Null when accepted, else why not.
     */
    public synchronized String attach(InstalledApp app, long pid, ApplicationThread thread) {
        ProcessRecord r = records.get(app.packageName);
        if (r == null || r.pid != pid || r.state != State.STARTING) {
            return "pid " + pid + " is not a process the system server started for " + app.packageName;
        }
        r.thread = thread;
        r.state = State.RUNNING;
        notifyAll();
        CellLog.i(TAG, "attached " + app.packageName + " pid " + pid + " uid " + app.uid);
        return null;
    }

    private synchronized ApplicationThread awaitAttach(ProcessRecord r) throws CellException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ATTACH_TIMEOUT_MILLIS);
        while (r.state == State.STARTING) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                kill(r, "did not attach within " + ATTACH_TIMEOUT_MILLIS / 1000 + " s");
                throw new CellException(500, r.app.packageName + "'s process did not attach in time");
            }
            try {
                wait(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CellException(500, "interrupted while " + r.app.packageName + "'s process started");
            }
        }
        if (r.state == State.DIED) {
            throw new CellException(500, r.app.packageName + "'s process (pid " + r.pid + ") died before it attached: "
                    + r.deathReason);
        }
        return r.thread;
    }

    /** Ends the app's process, if it has one running ({@code am force-stop}, uninstall, shutdown). */
    public void kill(String pkg, String reason) {
        ProcessRecord r;
        synchronized (this) {
            r = records.get(pkg);
        }
        if (r != null) {
            kill(r, reason);
        }
    }

    private void kill(ProcessRecord r, String reason) {
        Process p;
        synchronized (this) {
            if (r.state == State.DIED) {
                return;
            }
            r.killedBySystem = true;
            r.killReason = reason;
            p = r.process;
        }
        p.destroyForcibly();
        try {
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Every app process ends (the cell stops). */
    public void shutdown() {
        Template t;
        synchronized (this) {
            shutDown = true;
            t = spare;
            spare = null;
        }
        if (t != null) {
            t.process.destroyForcibly();
        }
        synchronized (this) {
            dispatchers.values().forEach(java.util.concurrent.ExecutorService::shutdownNow);
        }
        for (ProcessRecord r : records()) {
            kill(r, "the system server stopped");
        }
    }

    /** Lines for {@code dumpsys activity processes}. */
    public String dump() {
        StringBuilder b = new StringBuilder("ACTIVITY MANAGER RUNNING PROCESSES (dumpsys activity processes)\n");
        b.append("  apps in processes of their own: ").append(packages.isEmpty() ? "none (every app runs in the system server)"
                : String.join(", ", packages)).append('\n');
        Template t = spare;
        b.append("  pre-started template: ").append(t == null ? "none" : "pid " + t.process.pid()
                + (t.process.isAlive() ? "" : " (ended)")).append('\n');
        for (ProcessRecord r : records()) {
            b.append("  ProcessRecord{").append(r.app.packageName).append(" pid=").append(r.pid).append(" uid=")
                    .append(r.app.uid).append(" state=").append(r.state).append(" starts=").append(r.starts);
            if (r.lastLaunchMillis >= 0) {
                b.append(" lastLaunch=").append(r.lastLaunchMillis).append("ms").append(r.lastLaunchCold ? "(cold)" : "(warm)");
            }
            if (r.deathReason != null) {
                b.append(" lastDeath=\"").append(r.deathReason).append('"');
            }
            b.append("}\n");
        }
        return b.toString();
    }
}
