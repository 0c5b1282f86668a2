package org.rtdroid.android.cell;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The cell's adb device side against Debian's real {@code adb} client (tools/setup.sh installs it;
 * nothing here reimplements the client): a private adb server (its own port and HOME, so that
 * the developer's own is untouched) with a key made by {@code adb keygen}, authorised in the
 * cell's keys file, and a second client whose key is not. Each step is what a developer types.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AdbTest {
    static final String UI = "org.rtdroid.cochlear.ui";
    static final String ACTIVITY = UI + "/.ConfigurationActivity";

    Path tmp;
    Path region;
    CellProcess cell;
    Client adb;
    Client stranger;
    String serial;
    Path dataDir;

    /** One adb client: its server's port and its HOME (where ~/.android/adbkey lives). */
    record Client(Path home, int serverPort) {
        Result run(String... args) throws IOException, InterruptedException {
            List<String> cmd = new ArrayList<>(List.of("adb"));
            cmd.addAll(List.of(args));
            ProcessBuilder pb = new ProcessBuilder(cmd);
            Map<String, String> env = pb.environment();
            env.put("HOME", home.toString());
            env.put("ANDROID_ADB_SERVER_PORT", Integer.toString(serverPort));
            env.remove("ADB_VENDOR_KEYS");
            Path out = Files.createTempFile(home, "out", ".bin");
            Path err = Files.createTempFile(home, "err", ".txt");
            Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(90, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("adb " + String.join(" ", args) + " did not finish in 90 s");
            }
            return new Result(p.exitValue(), Files.readAllBytes(out), Files.readString(err));
        }
    }

    record Result(int status, byte[] bytes, String err) {
        String out() {
            return new String(bytes, StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return "status " + status + ", stdout: " + out() + ", stderr: " + err;
        }
    }

    static Client client(Path home) throws Exception {
        Files.createDirectories(home.resolve(".android"));
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Client c = new Client(home, port);
        Result r = c.run("keygen", home.resolve(".android/adbkey").toString());
        assertEquals(0, r.status(), "adb keygen: " + r);
        return c;
    }

    @BeforeAll
    void start() throws Exception {
        tmp = Files.createTempDirectory("adb-test");
        Process which = new ProcessBuilder("sh", "-c", "command -v adb").start();
        assertEquals(0, which.waitFor(), "Debian's adb client is not installed: run tools/setup.sh (make test does)");
        adb = client(tmp.resolve("developer"));
        stranger = client(tmp.resolve("stranger"));
        Path keys = tmp.resolve("adb_keys");
        Files.copy(adb.home().resolve(".android/adbkey.pub"), keys);
        region = Paths.get("/dev/shm/android-cell-adb-test-" + ProcessHandle.current().pid());
        TestRtPeer.format(region);
        cell = CellProcess.start(region, "--adb-port", "0", "--adb-keys", keys.toString());
        assertTrue(cell.adbPort() > 0, "READY line names the adb port: " + cell.stdout);
        serial = "127.0.0.1:" + cell.adbPort();
    }

    @AfterAll
    void stop() throws Exception {
        for (Client c : new Client[] {adb, stranger}) {
            if (c != null) {
                c.run("kill-server");
            }
        }
        if (cell != null) {
            cell.close();
        }
        if (region != null) {
            Files.deleteIfExists(region);
        }
        CellHost.deleteTree(tmp);
    }

    Result shell(String... command) throws Exception {
        List<String> args = new ArrayList<>(List.of("-s", serial, "shell"));
        args.addAll(List.of(command));
        return adb.run(args.toArray(String[]::new));
    }

    @Test
    @Order(1)
    void anAuthorisedKeyConnectsAndTheDeviceIsListed() throws Exception {
        Result c = adb.run("connect", serial);
        assertTrue(c.out().contains("connected to " + serial), c.toString());
        Result d = adb.run("devices");
        assertTrue(d.out().contains(serial + "\tdevice"), d.toString());
    }

    @Test
    @Order(2)
    void theShellKeepsQuotingAndExitStatus() throws Exception {
        Result echo = shell("echo", "'a  b'", "\"c;d\"");
        assertEquals("a  b c;d\n", echo.out(), echo.toString());
        assertEquals(0, shell("true").status());
        assertEquals(1, shell("false").status());
        Result missing = shell("frobnicate");
        assertEquals(127, missing.status(), missing.toString());
        assertTrue(missing.err().contains("frobnicate: inaccessible or not found"), missing.toString());
        assertEquals("34\n", shell("getprop", "ro.build.version.sdk").out());
    }

    @Test
    @Order(3)
    void adbInstallGoesThroughThePackageManagerWithTheSignatureChecked() throws Exception {
        Path apk = Bundles.apk(Bundles.configurationUi(Files.createDirectories(tmp.resolve("ui"))));
        Result r = adb.run("-s", serial, "install", apk.toString());
        assertEquals(0, r.status(), r.toString());
        assertTrue(r.out().contains("Success"), r.toString());
        assertTrue(shell("pm", "list", "packages").out().contains("package:" + UI + "\n"));
        assertTrue(shell("pm", "list", "packages", "-3").out().equals("package:" + UI + "\n"));
        // Its own Linux uid from Android's app range, and a data directory of its own: 0700 and,
        // where the cell runs as root, owned by that uid.
        Result pkg = shell("dumpsys", "package", UI);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("userId=(\\d+) dataDir=(\\S+)").matcher(pkg.out());
        assertTrue(m.find(), pkg.toString());
        assertEquals(10000, Integer.parseInt(m.group(1)), pkg.out());
        dataDir = Paths.get(m.group(2));
        assertTrue(dataDir.endsWith(Paths.get("data", "data", UI)) && Files.isDirectory(dataDir.resolve("files")), pkg.out());
        assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(dataDir)));
        if ((Integer) Files.getAttribute(Paths.get("/proc/self"), "unix:uid") == 0) {
            assertEquals(10000, Files.getAttribute(dataDir, "unix:uid"));
            assertEquals(10000, Files.getAttribute(dataDir.resolve("files"), "unix:gid"));
        }
        Result again = adb.run("-s", serial, "install", apk.toString());
        assertNotEquals(0, again.status(), again.toString());
        assertTrue(again.out().contains("Failure [") && again.out().contains("already installed"), again.toString());

        // One byte of a signed APK changed: apksigner refuses it, the package manager says so.
        byte[] b = Files.readAllBytes(apk);
        b[b.length / 2] ^= 0x55;
        Path tampered = Files.write(tmp.resolve("tampered.apk"), b);
        Result bad = adb.run("-s", serial, "install", tampered.toString());
        assertNotEquals(0, bad.status(), bad.toString());
        assertTrue(bad.out().contains("Failure [") && bad.out().contains("does not verify"), bad.toString());
        // adb removes what it pushed (rm -f ... </dev/null)
        assertEquals("", shell("ls", "/data/local/tmp").out());
    }

    @Test
    @Order(4)
    void amStartLaunchesAndScreencapDrawsIt() throws Exception {
        Result start = shell("am", "start", "-W", "-n", ACTIVITY);
        assertEquals(0, start.status(), start.toString());
        assertTrue(start.out().contains("Status: ok") && start.out().contains("TotalTime: "), start.toString());
        Result bad = shell("am", "start", "-n", UI + "/.NoSuchActivity");
        assertEquals(1, bad.status());
        assertTrue(bad.err().contains("Error: Activity not started"), bad.toString());

        Result dump = shell("dumpsys", "activity");
        assertTrue(dump.out().contains("mResumedActivity: " + UI + "/org.rtdroid.cochlear.ui.ConfigurationActivity"),
                dump.toString());

        Result png = adb.run("-s", serial, "exec-out", "screencap", "-p");
        assertEquals(0, png.status(), png.err());
        byte[] p = png.bytes();
        assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, java.util.Arrays.copyOf(p, 8));
        ByteBuffer ihdr = ByteBuffer.wrap(p, 16, 8);
        assertEquals(720, ihdr.getInt());
        assertEquals(1280, ihdr.getInt());
    }

    @Test
    @Order(5)
    void logcatShowsTheAppsLog() throws Exception {
        Result log = adb.run("-s", serial, "logcat", "-d");
        assertEquals(0, log.status(), log.err());
        assertTrue(log.out().contains("I/ActivityManager(android): Displayed " + UI + "/"), log.out());
        Result only = adb.run("-s", serial, "logcat", "-d", "-s", "ActivityManager:I");
        assertTrue(only.out().lines().allMatch(l -> l.contains("/ActivityManager(")), only.out());
    }

    @Test
    @Order(6)
    void amBroadcastReachesTheQueueButNotAtARealtimePriority() throws Exception {
        Result ok = shell("am", "broadcast", "-a", "org.rtdroid.test.HELLO", "-p", UI);
        assertEquals(0, ok.status(), ok.toString());
        assertTrue(ok.out().contains("Broadcast completed: result=0"), ok.toString());
        Result rt = shell("am", "broadcast", "-a", "org.rtdroid.test.HELLO", "--ei",
                "org.rtdroid.intent.extra.SENDER_PRIORITY", "90");
        assertEquals(1, rt.status(), rt.toString());
        assertTrue(rt.err().contains("requires org.rtdroid.permission.REALTIME_BROADCAST"), rt.toString());
    }

    @Test
    @Order(7)
    void pushAndPullWhereAndroidAllowsIt() throws Exception {
        byte[] data = new byte[200_000];
        new java.util.Random(7).nextBytes(data);
        Path local = Files.write(tmp.resolve("data.bin"), data);
        Result push = adb.run("-s", serial, "push", local.toString(), "/sdcard/Download/data.bin");
        assertEquals(0, push.status(), push.toString());
        Path back = tmp.resolve("back.bin");
        Result pull = adb.run("-s", serial, "pull", "/sdcard/Download/data.bin", back.toString());
        assertEquals(0, pull.status(), pull.toString());
        assertArrayEquals(data, Files.readAllBytes(back));
        Result denied = adb.run("-s", serial, "push", local.toString(), "/data/data/" + UI + "/files/x");
        assertNotEquals(0, denied.status());
        assertTrue((denied.out() + denied.err()).contains("Permission denied"), denied.toString());
    }

    @Test
    @Order(8)
    void forceStopAndUninstall() throws Exception {
        assertEquals(0, shell("am", "force-stop", UI).status());
        assertTrue(shell("dumpsys", "activity").out().contains(UI + ": STOPPED"));
        Result u = adb.run("-s", serial, "uninstall", UI);
        assertEquals(0, u.status(), u.toString());
        assertTrue(u.out().contains("Success"), u.toString());
        assertEquals("package:org.rtdroid.proxy\n", shell("pm", "list", "packages").out());
        assertTrue(!Files.exists(dataDir), "an uninstall takes the app's data: " + dataDir);
        Result again = adb.run("-s", serial, "uninstall", UI);
        assertNotEquals(0, again.status(), again.toString());
    }

    @Test
    @Order(9)
    void anUnauthorisedKeyIsRefusedAndCounted() throws Exception {
        Result c = stranger.run("connect", serial);
        assertTrue(c.out().contains("failed to authenticate"), c.toString());
        Result d = stranger.run("devices");
        assertTrue(d.out().contains(serial + "\tunauthorized"), d.toString());
        Result s = stranger.run("-s", serial, "shell", "echo", "hi");
        assertNotEquals(0, s.status());
        assertTrue(s.err().contains("unauthorized"), s.toString());
        assertTrue(shell("dumpsys", "adb").out().matches("(?s).*refused keys: [1-9].*"));
    }

    @Test
    @Order(10)
    void theControlPortServesOnlyTheTokenAdbHandsToAnAuthorisedKey() throws Exception {
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        java.net.URI state = java.net.URI.create("http://127.0.0.1:" + cell.port + "/state");
        java.net.http.HttpResponse<String> bare = http.send(java.net.http.HttpRequest.newBuilder(state).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertEquals(401, bare.statusCode(), bare.body());
        assertTrue(bare.body().contains("adb shell cmd control token"), bare.body());
        Result token = shell("cmd", "control", "token");
        assertEquals(0, token.status(), token.toString());
        java.net.http.HttpResponse<String> ok = http.send(java.net.http.HttpRequest.newBuilder(state)
                .header("Authorization", "Bearer " + token.out().strip()).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertEquals(200, ok.statusCode(), ok.body());
        Result refused = stranger.run("-s", serial, "shell", "cmd", "control", "token");
        assertNotEquals(0, refused.status());
        assertTrue(!refused.out().contains(token.out().strip()), refused.toString());
    }
}
