package org.rtdroid.android.cell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The system server's IPC learns its caller from the kernel: real processes under real Linux uids
 * ({@code setpriv}, so the test needs root, as the project's machines and CI run) call it over its
 * Unix socket with a client that is not this project's code (Python's socket module). The app's
 * uid is the app; another uid is nobody; a caller naming itself, forging arguments or asking for a
 * real-time priority it does not hold is refused; and one app's uid cannot read another's files.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BinderTest {
    static final String UI = "org.rtdroid.cochlear.ui";
    static final String HOSTILE = "org.rtdroid.hostile";
    static final String CELLTEST = "org.rtdroid.celltest";
    static final String TESTAPP = "org.rtdroid.android.cell.testapp.";
    /**
     * The hostile app (HostileActivity, signed by a key of its own), which also carries a
     * receiver, a started service, an exported bound service and one not exported.
     */
    static final String HOSTILE_MANIFEST = Bundles.manifest(HOSTILE, 1, "Hostile", "", "HostileActivity", """
            <service android:name="org.rtdroid.android.cell.testapp.WorkService" android:exported="false">
              <intent-filter>
                <action android:name="org.rtdroid.test.WORK" />
              </intent-filter>
            </service>
            <receiver android:name="org.rtdroid.android.cell.testapp.PrivateReceiver" android:exported="false">
              <intent-filter>
                <action android:name="org.rtdroid.test.PRIVATE" />
              </intent-filter>
            </receiver>
            <receiver android:name="org.rtdroid.android.cell.testapp.EchoReceiver" android:exported="true">
              <intent-filter>
                <action android:name="org.rtdroid.test.ECHO" />
              </intent-filter>
            </receiver>
            """);

    /** A transaction client: argv[1] the socket, then one request per argument ("\n" between lines). */
    static final String CLIENT = String.join("\n",
            "import os, socket, struct, sys",
            "s = socket.socket(socket.AF_UNIX)",
            "s.connect(sys.argv[1])",
            "print('pid=%d' % os.getpid())",
            "for req in sys.argv[2:]:",
            "    b = req.replace('\\\\n', '\\n').encode()",
            "    s.sendall(struct.pack('<I', len(b)) + b)",
            "    n = struct.unpack('<I', s.recv(4, socket.MSG_WAITALL))[0]",
            "    print(s.recv(n, socket.MSG_WAITALL).decode().replace('\\n', ' '))");

    Path tmp;
    /** The UI's, the stranger's (another key) and the hostile app's APKs. */
    java.util.concurrent.CompletableFuture<List<Path>> apks;
    Path region;
    CellProcess cell;
    String socket;
    int appUid;
    Path dataDir;

    @BeforeAll
    void start() throws Exception {
        assumeTrue((Integer) Files.getAttribute(Paths.get("/proc/self"), "unix:uid") == 0,
                "real app uids need root (setpriv), as the project's machines and CI run");
        tmp = Files.createTempDirectory("binder-test");
        region = Paths.get("/dev/shm/android-cell-binder-test-" + ProcessHandle.current().pid());
        TestRtPeer.format(region);
        // the APKs are signed (apksigner, keytool: JVMs of their own) while the cell starts
        apks = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                Path other = Bundles.otherKeystore(tmp);
                return List.of(Bundles.apk(Bundles.configurationUi(Files.createDirectories(tmp.resolve("ui")))),
                        Bundles.apk(Bundles.testApp(Files.createDirectories(tmp.resolve("stranger"))), other),
                        Bundles.apk(Bundles.testApp(Files.createDirectories(tmp.resolve("hostile")), HOSTILE_MANIFEST), other));
            } catch (Exception e) {
                throw new IllegalStateException("cannot make the test's APKs: " + e, e);
            }
        });
        cell = CellProcess.start(region, "--app-process", HOSTILE);
        for (String line : cell.stdout) {
            Matcher m = Pattern.compile("system server IPC on (\\S+)").matcher(line);
            if (m.find()) {
                socket = m.group(1);
            }
        }
        assertTrue(socket != null, "the cell names its IPC socket: " + cell.stdout);
        Path apk = apks.get().get(0);
        assertEquals(200, cell.post("/apps/install", "{\"apk\":\"" + apk + "\"}").status());
        String app = cell.get("/apps/" + UI).body();
        Matcher uid = Pattern.compile("\"uid\":(\\d+)").matcher(app);
        Matcher dir = Pattern.compile("\"dataDir\":\"([^\"]+)\"").matcher(app);
        assertTrue(uid.find() && dir.find(), app);
        appUid = Integer.parseInt(uid.group(1));
        dataDir = Paths.get(dir.group(1));
    }

    @AfterAll
    void stop() throws Exception {
        if (cell != null) {
            cell.close();
        }
        if (region != null) {
            Files.deleteIfExists(region);
        }
        if (tmp != null) {
            CellHost.deleteTree(tmp);
        }
    }

    /** Runs a command as {@code uid} (its own gid, no supplementary groups); its stdout and stderr. */
    static String runAs(int uid, String... command) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups"));
        cmd.addAll(List.of(command));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "did not finish: " + cmd);
        return new String(p.getInputStream().readAllBytes());
    }

    String call(int uid, String... requests) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/python3", "-c", CLIENT, socket));
        cmd.addAll(List.of(requests));
        return runAs(uid, cmd.toArray(String[]::new));
    }

    @Test
    @Order(1)
    void theKernelNamesTheCallerItsUidIsTheApp() throws Exception {
        String out = call(appUid, "whoami");
        Matcher pid = Pattern.compile("pid=(\\d+)\\n").matcher(out);
        assertTrue(pid.find(), out);
        assertTrue(out.contains("OK uid=" + appUid + " pid=" + pid.group(1) + " gid=" + appUid + " package=" + UI), out);
    }

    @Test
    @Order(2)
    void aCallerThatNamesItselfIsRefused() throws Exception {
        String out = call(appUid, "broadcast\\naction=org.rtdroid.test.HELLO\\nsender=org.rtdroid.proxy");
        assertTrue(out.contains("ERR field 'sender' refused: who calls is the kernel's to say (uid " + appUid), out);
    }

    @Test
    @Order(3)
    void aUidThatIsNoAppIsRefused() throws Exception {
        String out = call(appUid + 1, "whoami");
        assertTrue(out.contains("ERR uid " + (appUid + 1) + " (pid "), out);
        assertTrue(out.contains("is no installed app"), out);
    }

    @Test
    @Order(4)
    void permissionsAreTheUidsAppsGrants() throws Exception {
        String out = call(appUid, "broadcast\\naction=org.rtdroid.test.HELLO\\npriority=10\\nextra.k=v",
                "broadcast\\naction=org.rtdroid.test.HELLO\\npriority=90");
        assertTrue(out.contains("OK queued=org.rtdroid.test.HELLO priority=10"), out);
        assertTrue(out.contains("ERR Permission Denial: broadcast at real-time sender priority 90 from " + UI
                + " requires org.rtdroid.permission.REALTIME_BROADCAST"), out);
    }

    @Test
    @Order(5)
    void forgedArgumentsAreRefused() throws Exception {
        String out = call(appUid, "broadcast\\naction=org.rtdroid.test.HELLO\\npriority=500", "reboot",
                "broadcast\\npriority=1");
        assertTrue(out.contains("ERR priority '500' is not 0..99"), out);
        assertTrue(out.contains("ERR no method 'reboot'"), out);
        assertTrue(out.contains("ERR broadcast needs action=NAME"), out);
        // The replies can arrive before the cell's stdout reader has taken the log lines from the
        // pipe: wait for them (a bound for liveness only; the verdict is the count).
        long refusals = cell.linesContaining("W/Binder(android): refused a transaction", 6, 30_000);
        assertTrue(refusals >= 6, "every refusal is logged: " + refusals);
    }

    @Test
    @Order(6)
    void anotherUidCannotReadTheAppsFiles() throws Exception {
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dataDir)));
        Path secret = dataDir.resolve("files/secret.txt");
        Files.writeString(secret, "the app's own");
        Files.setAttribute(secret, "unix:uid", appUid);
        Files.setAttribute(secret, "unix:gid", appUid);
        assertEquals("the app's own", runAs(appUid, "cat", secret.toString()));
        String other = runAs(appUid + 1, "cat", secret.toString());
        assertTrue(other.contains("Permission denied"), other);
    }

    @Test
    @Order(7)
    void aSendReachesTheProxyAsTheKernelsUidsApp() throws Exception {
        // The UI holds CROSS_CONTEXT (platform-signed): the proxy takes the send as the UI's, and
        // checks it (no RT cell runs here, so it refuses it for that, naming the sender).
        String out = call(appUid, "send\nchannel=echo\naction=org.rtdroid.echo.PING\npayload=00ff\npriority=90",
                "send\nchannel=echo\naction=org.rtdroid.echo.PING\nsender=org.rtdroid.proxy");
        assertTrue(out.contains("OK handedToProxy=echo"), out);
        assertTrue(out.contains("ERR field 'sender' refused"), out);
        cell.await("/proxy/stats", b -> b.contains("\"refused\":"), 10_000);
        long named = cell.linesContaining("refused send from " + UI + " on channel 'echo'", 1, 5_000);
        assertTrue(named > 0, "the proxy names the uid's app as the sender: " + cell.stdout);
    }

    @Test
    @Order(8)
    void anAppWithoutTheProxysPermissionIsRefusedByUid() throws Exception {
        Path other = apks.get().get(1);
        assertEquals(200, cell.post("/apps/install", "{\"apk\":\"" + other + "\"}").status());
        Matcher uid = Pattern.compile("\"uid\":(\\d+)").matcher(cell.get("/apps/org.rtdroid.celltest").body());
        assertTrue(uid.find());
        int strangerUid = Integer.parseInt(uid.group(1));
        assertTrue(strangerUid != appUid);
        String out = call(strangerUid, "whoami", "send\nchannel=echo\naction=org.rtdroid.echo.PING");
        assertTrue(out.contains("package=org.rtdroid.celltest"), out);
        assertTrue(out.contains("ERR Not allowed to start service") && out.contains("from org.rtdroid.celltest without "
                + "permission org.rtdroid.permission.CROSS_CONTEXT"), out);
    }

    /** The hostile app's process as the control interface shows it: pid, state, starts, last death. */
    Matcher process() throws Exception {
        String app = cell.get("/apps/" + HOSTILE).body();
        Matcher m = Pattern.compile("\"process\":\\{\"pid\":(\\d+),\"state\":\"(\\w+)\",\"starts\":(\\d+),"
                + "\"lastLaunchMillis\":-?\\d+,\"lastDeath\":(null|\"[^\"]*\")").matcher(app);
        assertTrue(m.find(), app);
        return m;
    }

    static String statusLine(long pid, String key) throws Exception {
        for (String l : Files.readAllLines(Paths.get("/proc/" + pid + "/status"))) {
            if (l.startsWith(key + ":")) {
                return l.substring(key.length() + 1).trim().replaceAll("\\s+", " ");
            }
        }
        return null;
    }

    /** Installs an app; its uid. */
    int install(Path apk, String pkg) throws Exception {
        CellProcess.Reply r = cell.post("/apps/install", "{\"apk\":\"" + apk + "\"}");
        assertEquals(200, r.status(), r.body());
        Matcher uid = Pattern.compile("\"uid\":(\\d+)").matcher(cell.get("/apps/" + pkg).body());
        assertTrue(uid.find());
        return Integer.parseInt(uid.group(1));
    }

    /** The first line of the cell's log (its logcat, the app processes' included) with every part; waits for it. */
    String awaitLog(String... parts) throws Exception {
        for (long end = System.nanoTime() + 120_000_000_000L; System.nanoTime() < end; Thread.sleep(20)) {
            for (String l : List.copyOf(cell.stdout)) {
                if (java.util.Arrays.stream(parts).allMatch(l::contains)) {
                    return l;
                }
            }
        }
        throw new AssertionError("no log line with " + List.of(parts) + " in: " + String.join("\n", cell.stdout));
    }

    long processPid(String pkg) throws Exception {
        Matcher m = Pattern.compile("\"process\":\\{\"pid\":(\\d+),\"state\":\"RUNNING\"").matcher(cell.get("/apps/" + pkg).body());
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    int hostileUid;

    @Test
    @Order(20)
    void aBroadcastStartsTheAppsProcessUnderItsUidAndItsReceiverAndServiceRunThere() throws Exception {
        hostileUid = install(apks.get().get(2), HOSTILE);
        assertEquals(-1, processPid(HOSTILE), "no process before its first use");
        // a broadcast from the UI's uid (the kernel names it) to the app's manifest receiver
        String out = call(appUid, "broadcast\\naction=org.rtdroid.test.ECHO\\npackage=" + HOSTILE
                + "\\nint.n=7\\nextra.note=by%20value\\nextra.app=" + HOSTILE);
        assertTrue(out.contains("OK queued=org.rtdroid.test.ECHO"), out);
        String started = awaitLog("Start proc ", ":" + HOSTILE + "/", "for broadcast org.rtdroid.test.ECHO");
        String received = awaitLog("EchoReceiver", "org.rtdroid.test.ECHO in pid ", " n=7 note=by value");
        // the receiver's startService went out over the IPC and came back to the app's process
        String work = awaitLog("WorkService", "start 1 in pid ", " n=7");
        Matcher m = process();
        long pid = Long.parseLong(m.group(1));
        assertEquals("RUNNING", m.group(2));
        assertEquals("1", m.group(3));
        assertTrue(pid != cell.process.pid(), "its own process, not the system server's");
        assertTrue(started.contains("Start proc " + pid + ":"), started);
        assertTrue(received.contains("in pid " + pid + " as uid " + hostileUid), received + " (pid " + pid + ")");
        assertTrue(work.contains("in pid " + pid + " as uid " + hostileUid), work);
        String u = hostileUid + " " + hostileUid + " " + hostileUid + " " + hostileUid;
        assertEquals(u, statusLine(pid, "Uid"), "real, effective, saved and file-system uid of pid " + pid);
        assertEquals(u, statusLine(pid, "Gid"));
        assertEquals("", statusLine(pid, "Groups"));
    }

    @Test
    @Order(21)
    void aBindingGetsAHandleWhoseTransactionsRunInTheAppsProcess() throws Exception {
        long pid = processPid(HOSTILE);
        // from the UI's uid: a handle (the binder's own INTERFACE_TRANSACTION answers its
        // descriptor there); another handle is refused, and so is a service not exported
        String out = call(appUid, "bindService\\ncomponent=" + HOSTILE + "/" + TESTAPP + "EchoBinderService",
                "transact\\nhandle=1\\ncode=1598968902\\ndata=", "transact\\nhandle=2\\ncode=1\\ndata=",
                "bindService\\ncomponent=" + HOSTILE + "/" + TESTAPP + "TestService", "unbindService\\nhandle=1");
        assertTrue(out.contains("OK handle=1 component=" + HOSTILE + "/" + TESTAPP + "EchoBinderService descriptor=org.rtdroid.test.IEcho"), out);
        assertTrue(out.contains("OK result=true reply="), out);
        assertTrue(out.contains("ERR no binder 2 bound by this connection"), out);
        assertTrue(out.contains("ERR Not allowed to bind to service") && out.contains("from " + UI + ": " + HOSTILE + "/"
                + TESTAPP + "TestService is not exported from uid " + hostileUid), out);
        assertTrue(awaitLog("EchoBinderService", "onBind in pid ").contains("in pid " + pid + " as uid " + hostileUid));
        // a receiver the app did not export is not reached by another app's broadcast
        out = call(appUid, "broadcast\\naction=org.rtdroid.test.PRIVATE\\npackage=" + HOSTILE);
        assertTrue(out.contains("OK queued=org.rtdroid.test.PRIVATE"), out);
        awaitLog("Permission Denial: broadcast org.rtdroid.test.PRIVATE from " + UI + " not delivered to " + HOSTILE + "/"
                + TESTAPP + "PrivateReceiver: not exported from uid " + hostileUid);
        assertEquals(pid, processPid(HOSTILE), "the same process");
    }

    @Test
    @Order(22)
    void anAttachFromAProcessTheSystemServerDidNotStartIsRefused() throws Exception {
        String out = call(hostileUid, "attachApplication");
        assertTrue(out.contains("ERR pid "), out);
        assertTrue(out.contains("is not a process the system server started for " + HOSTILE), out);
    }

    @Test
    @Order(23)
    void aHostileAppIsRefusedByTheKernelAndTheSystemServer() throws Exception {
        // a process of the UI's uid, whose memory the hostile app tries (the UI itself runs in the
        // system server's JVM in this cell)
        Process ui = new ProcessBuilder("setpriv", "--reuid=" + appUid, "--regid=" + appUid, "--clear-groups", "sleep",
                "120").start();
        try {
            long hostilePid = processPid(HOSTILE);
            CellProcess.Reply r = cell.post("/apps/" + HOSTILE + "/launch", "{}");
            assertEquals(200, r.status(), r.body());
            assertTrue(r.body().contains("HostileActivity"), r.body());
            assertEquals(hostilePid, processPid(HOSTILE), "the launch went to the process the broadcast started");
            // the kernel: another uid's data directory (0700) and process memory (ptrace access mode)
            // its own log lines reach logcat as its own, under the package the system server started it as
            String data = awaitLog("W/Hostile(" + HOSTILE + "): REFUSED data: AccessDeniedException");
            assertTrue(data.contains(dataDir.toString()), data);
            String memory = awaitLog("/Hostile(", "REFUSED memory: /proc/");
            // the first process of that uid it finds: this one, or another cell's app of the same
            // uid on this machine (app uids are the kernel's, not the cell's)
            assertTrue(Pattern.compile("REFUSED memory: /proc/\\d+/mem: AccessDeniedException").matcher(memory).find(),
                    memory + " (the UI's uid's process is " + ui.pid() + ")");
            // the system server: a sender that names itself, a binding to a service not exported
            awaitLog("/Hostile(", "REFUSED broadcast-as-other: ERR field 'callingPackage' refused: who calls is the kernel's"
                    + " to say (uid " + hostileUid);
            awaitLog("W/Binder(android): refused a transaction from uid " + hostileUid + " pid " + hostilePid
                    + ": field 'callingPackage' refused");
            awaitLog("/Hostile(", "REFUSED bind-not-exported: SecurityException Not allowed to bind to service",
                    "from " + HOSTILE + ": " + CELLTEST + "/" + TESTAPP + "TestService is not exported from uid ");
            awaitLog("W/Binder(android): refused a transaction from uid " + hostileUid, "TestService is not exported");
            // what it may do: bind the exported service, through a proxy (the object stays where it runs)
            String bound = awaitLog("/Hostile(", "bound " + TESTAPP + "EchoBinderService through BinderProxy{handle=");
            assertTrue(bound.contains("(the service's object: false), in pid " + hostilePid + ": echo hi from pid "
                    + cell.process.pid()), bound);
            // a receiver it registered at run time gets a broadcast from another uid, in its process
            String sent = call(appUid, "broadcast\\naction=org.rtdroid.test.TO_ACTIVITY\\nint.n=3");
            assertTrue(sent.contains("OK queued=org.rtdroid.test.TO_ACTIVITY"), sent);
            awaitLog("/Hostile(", "registered receiver got org.rtdroid.test.TO_ACTIVITY in pid " + hostilePid + " n=3");
            assertTrue(cell.stdout.stream().noneMatch(l -> l.contains("/PrivateReceiver(")), "a private receiver was reached");
            assertTrue(cell.stdout.stream().noneMatch(l -> l.contains("/Hostile(") && l.contains("ALLOWED ")
                    || l.contains("NOT TRIED")), String.join("\n", cell.stdout));
        } finally {
            ui.destroyForcibly();
        }
    }

    @Test
    @Order(24)
    void aKilledProcessIsShownWithItsReasonAndStartedAgainOnNextUse() throws Exception {
        long pid = Long.parseLong(process().group(1));
        assertTrue(ProcessHandle.of(pid).orElseThrow().destroyForcibly());
        Matcher m = process();
        for (int i = 0; i < 200 && !m.group(2).equals("DIED"); i++) {
            Thread.sleep(50);
            m = process();
        }
        assertEquals("DIED", m.group(2));
        assertEquals("\"killed by signal 9 (SIGKILL)\"", m.group(4));
        assertEquals(200, cell.post("/apps/" + HOSTILE + "/launch", "{}").status());
        m = process();
        assertEquals("RUNNING", m.group(2));
        assertEquals("2", m.group(3));
        assertTrue(Long.parseLong(m.group(1)) != pid, "a new process");
        assertEquals("\"killed by signal 9 (SIGKILL)\"", m.group(4), "the last death's reason stays shown");
        assertEquals(hostileUid + " " + hostileUid + " " + hostileUid + " " + hostileUid,
                statusLine(Long.parseLong(m.group(1)), "Uid"));
    }

    @Test
    @Order(25)
    void uiAutomationAndTheScreenshotReachTheActivityInItsAppsProcess() throws Exception {
        long pid = Long.parseLong(process().group(1));
        String hostile = "{\"package\":\"" + HOSTILE + "\",\"activity\":\"" + TESTAPP + "HostileActivity\"}";
        assertTrue(cell.get("/state").body().contains("\"foreground\":" + hostile), cell.get("/state").body());
        assertEquals("{\"id\":\"whoami\",\"text\":\"" + HOSTILE + " pid " + pid + "\"}", cell.get("/ui/text?id=whoami").body());
        CellProcess.Reply r = cell.post("/ui/click", "{\"id\":\"tap\"}");
        assertEquals("{\"clicked\":\"tap\",\"handled\":true}", r.body());
        assertEquals("{\"id\":\"whoami\",\"text\":\"tapped in pid " + pid + "\"}", cell.get("/ui/text?id=whoami").body());
        // what the app's process refuses reaches the caller with its status and reason
        r = cell.post("/ui/click", "{\"id\":\"no_such_view\"}");
        assertEquals(404, r.status(), r.body());
        assertTrue(r.body().contains("no view with id 'no_such_view' in " + TESTAPP + "HostileActivity"), r.body());
        r = cell.post("/ui/seekbar", "{\"id\":\"tap\",\"progress\":3}");
        assertEquals(400, r.status(), r.body());
        assertTrue(r.body().contains("not a SeekBar"), r.body());
        // the window drawn in the app's process, in chunks over the IPC, whole
        byte[] png = cell.getBytes("/screenshot");
        assertTrue(png.length > 2 * org.rtdroid.android.cell.control.UiAutomation.SCREENSHOT_CHUNK, "bytes: " + png.length);
        java.awt.image.BufferedImage image = javax.imageio.ImageIO.read(new java.io.ByteArrayInputStream(png));
        assertTrue(image != null && image.getWidth() > 0 && image.getHeight() > 0, "not a PNG");
        // an activity launched in the system server comes on top, and UI automation follows it
        assertEquals(200, cell.post("/apps/" + UI + "/launch", "{}").status());
        assertTrue(cell.get("/state").body().contains("\"foreground\":{\"package\":\"" + UI + "\""), cell.get("/state").body());
        assertEquals("{\"id\":\"ping_result\",\"text\":\"No ping yet\"}", cell.get("/ui/text?id=ping_result").body());
        // and the app process's activity under it paused and stopped, as on Android
        awaitLog("paused and stopped " + TESTAPP + "HostileActivity: another app's activity is on top");
        assertEquals(200, cell.post("/apps/" + HOSTILE + "/launch", "{}").status());
        assertEquals(pid, Long.parseLong(process().group(1)), "the same process, warm");
        assertTrue(cell.get("/state").body().contains("\"foreground\":" + hostile), cell.get("/state").body());
        assertTrue(cell.get("/ui/text?id=whoami").body().contains("pid " + pid), cell.get("/ui/text?id=whoami").body());
        // app code that throws in a click ends its process, as on Android; its activity goes with it
        r = cell.post("/ui/click", "{\"id\":\"crash\"}");
        assertEquals(500, r.status(), r.body());
        Matcher m = process();
        for (int i = 0; i < 200 && !m.group(2).equals("DIED"); i++) {
            Thread.sleep(50);
            m = process();
        }
        assertEquals("\"crashed: its app code threw (FATAL EXCEPTION in logcat)\"", m.group(4));
        awaitLog("FATAL EXCEPTION in " + HOSTILE + " (the UI action click on 'crash')");
        for (int i = 0; i < 100 && cell.get("/state").body().contains("\"foreground\":" + hostile); i++) {
            Thread.sleep(50);
        }
        assertTrue(!cell.get("/state").body().contains("\"foreground\":" + hostile), cell.get("/state").body());
    }
}
