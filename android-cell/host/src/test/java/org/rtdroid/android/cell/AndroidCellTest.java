package org.rtdroid.android.cell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.rtdroid.bridge.codec.Frame;
import org.rtdroid.contract.Payload;
import org.rtdroid.contract.cochlear.Cochlear;
import org.rtdroid.contract.cochlear.CochlearCodec;
import org.rtdroid.contract.echo.Echo;
import org.rtdroid.contract.echo.EchoCodec;
import org.rtdroid.contract.fall.Fall;

/**
 * The cell host as a whole: one real host process (the AOSP framework on the JVM) shared by every
 * test in order, the proxy attached to a real /dev/shm region whose RT side is
 * {@link TestRtPeer}, driven only through the control interface. The last test sends SIGTERM.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AndroidCellTest {
    static final String UI = "org.rtdroid.cochlear.ui";
    static final String TEST_APP = "org.rtdroid.celltest";
    static final String FALL = "org.rtdroid.fall.ui";

    @TempDir
    Path tmp;
    Path region;
    CellProcess cell;
    TestRtPeer rt;

    @BeforeAll
    void startCell() throws Exception {
        region = Paths.get("/dev/shm/android-cell-test-" + ProcessHandle.current().pid());
        TestRtPeer.format(region);
        cell = CellProcess.start(region);
        System.out.println("[android-cell] READY after " + cell.startupMillis + " ms, RSS " + cell.rssKiB() / 1024
                + " MiB");
    }

    @AfterAll
    void stopCell() throws Exception {
        if (rt != null) {
            rt.close();
        }
        if (cell != null) {
            cell.close();
        }
        Files.deleteIfExists(region);
    }

    @Test
    @Order(1)
    void stateSaysReadyWithTheFrameworkAndTheProxy() throws Exception {
        CellProcess.Reply r = cell.get("/state");
        assertEquals(200, r.status(), r.body());
        assertTrue(r.body().contains("\"ready\":true"), r.body());
        assertTrue(r.body().contains("\"sdk\":34"), r.body());
        assertTrue(r.body().contains("\"package\":\"org.rtdroid.proxy\""), r.body());
        String stats = cell.get("/proxy/stats").body();
        assertTrue(stats.contains("\"attaches\":1"), stats);
        assertTrue(stats.contains("\"connected\":false"), "no RT peer yet: " + stats);
        // The warm-up loaded the native graphics runtime in place from the build's unpacked copy,
        // not by Robolectric's extraction into a temp directory.
        String logs = cell.get("/logcat?since=0").body();
        assertTrue(logs.contains("native graphics runtime loaded from "), logs);
        assertTrue(logs.contains("nativeruntime in "), logs);
    }

    @Test
    @Order(2)
    void malformedBundlesAreRefusedWithTheirReason() throws Exception {
        assertRefused("{\"apk\":\"" + tmp.resolve("nope.apk") + "\"}", "does not exist");
        // An unsigned folder is not an app: the cell takes an app's identity from its signed APK.
        Path folder = Bundles.testApp(tmp.resolve("folder"));
        assertRefused("{\"apk\":\"" + folder + "\"}", "is a folder (an unsigned app bundle)");
        assertRefused("{\"bundle\":\"" + folder + "\"}", "from signed APKs only");
        Path unsigned = Bundles.zip(folder, tmp.resolve("unsigned.apk"));
        assertRefused("{\"apk\":\"" + unsigned + "\"}", "is not signed or does not verify");
        Path tampered = Bundles.apk(Bundles.testApp(tmp.resolve("tampered")));
        byte[] bytes = Files.readAllBytes(tampered);
        bytes[bytes.length / 3] ^= 0x01; // inside classes.jar's data: covered by the v2/v3 digest
        Files.write(tampered, bytes);
        assertRefused("{\"apk\":\"" + tampered + "\"}", "DOES NOT VERIFY");

        Path noManifest = Files.createDirectories(tmp.resolve("no-manifest"));
        Files.write(noManifest.resolve("classes.jar"), new byte[] {1, 2, 3});
        assertRefused(bundleJson(noManifest), "has no AndroidManifest.xml");

        assertRefused(bundleJson(Bundles.testApp(tmp.resolve("bad-xml"),
                "<manifest package=\"a.b\"><application>")), "AndroidManifest.xml line");

        assertRefused(bundleJson(Bundles.testApp(tmp.resolve("no-launcher"),
                Bundles.TEST_APP_MANIFEST.replace("android.intent.category.LAUNCHER", "x.y"))), "LAUNCHER");

        assertRefused(bundleJson(Bundles.testApp(tmp.resolve("missing-class"),
                Bundles.TEST_APP_MANIFEST.replace("testapp.TestService", "testapp.Missing"))), "org/rtdroid/android/cell/testapp/Missing.class");

        Path notAJar = Bundles.testApp(tmp.resolve("not-a-jar"));
        Files.writeString(notAJar.resolve("classes.jar"), "hello");
        assertRefused(bundleJson(notAJar), "not a valid jar");

        assertRefused(bundleJson(Bundles.testApp(tmp.resolve("bad-channel"),
                Bundles.TEST_APP_MANIFEST.replace("echo,test.boom", "echo,no spaces"))), "channel 'no spaces'");

        assertRefused("{\"apk\": 5}", "'apk'");
        assertRefused("{\"bundle\": ", "malformed JSON");
        assertFalse(cell.get("/apps").body().contains(TEST_APP), "nothing was installed");
    }

    private void assertRefused(String body, String reason) throws Exception {
        CellProcess.Reply r = cell.post("/apps/install", body);
        assertEquals(400, r.status(), r.body());
        assertTrue(r.body().contains("\"error\""), r.body());
        assertTrue(r.body().contains(reason), "expected '" + reason + "' in " + r.body());
    }

    /** The install request for {@code bundleDir} packed and signed with the platform key. */
    /** A payload of an app contract, encoded as the RT side sends it. */
    private static byte[] encode(Payload p) {
        byte[] b = new byte[224];
        int n = p.encode(b, 0);
        assertTrue(n >= 0, "encodes");
        return java.util.Arrays.copyOf(b, n);
    }

    private static String bundleJson(Path bundleDir) throws Exception {
        return apkJson(Bundles.apk(bundleDir));
    }

    private static String apkJson(Path apk) {
        return "{\"apk\":\"" + apk + "\"}";
    }

    @Test
    @Order(3)
    void configurationUiInstallsLaunchesAndRendersAScreenshot() throws Exception {
        Path bundle = Bundles.configurationUi(Files.createDirectories(tmp.resolve("configuration-ui")));
        String install = bundleJson(bundle);
        CellProcess.Reply r = cell.post("/apps/install", install);
        assertEquals(200, r.status(), r.body());
        assertTrue(r.body().contains("\"channels\":[\"echo\",\"cochlear.config\",\"cochlear.status\"]"), r.body());
        assertTrue(r.body().contains("\"permissions\":[\"org.rtdroid.permission.CROSS_CONTEXT\"]"),
                "signed with the platform key: granted the proxy's signature permission: " + r.body());
        assertEquals(409, cell.post("/apps/install", install).status(), "duplicate install refused");

        r = cell.post("/apps/" + UI + "/launch", "");
        assertEquals(200, r.status(), r.body());
        assertTrue(r.body().contains("ConfigurationActivity"), r.body());
        assertTrue(cell.get("/state").body().contains("\"foreground\":{\"package\":\"" + UI + "\""));
        assertEquals("{\"id\":\"ping_result\",\"text\":\"No ping yet\"}", cell.get("/ui/text?id=ping_result").body());

        byte[] png = cell.getBytes("/screenshot");
        assertTrue(png.length > 10_000, "a real rendering, not a blank: " + png.length + " bytes");
        assertEquals((byte) 0x89, png[0]);
        assertEquals('P', png[1]);
        int width = ByteBuffer.wrap(png, 16, 4).getInt();
        int height = ByteBuffer.wrap(png, 20, 4).getInt();
        assertEquals(720, width, "360dp at xhdpi");
        assertEquals(1280, height);
        Path out = Paths.get("target/screenshots");
        Files.createDirectories(out);
        Files.write(out.resolve("configuration-ui.png"), png);

        String logs = cell.get("/logcat?since=0").body();
        assertTrue(logs.contains("\"tag\":\"ConfigurationUI\",\"app\":\"" + UI + "\""), "log attributed to the app");
    }

    @Test
    @Order(4)
    void uiEventsForMissingViewsAndBadValuesFailClearly() throws Exception {
        CellProcess.Reply r = cell.post("/ui/click", "{\"id\":\"no_such_view\"}");
        assertEquals(404, r.status(), r.body());
        assertTrue(r.body().contains("no view with id 'no_such_view'"), r.body());
        r = cell.post("/ui/seekbar", "{\"id\":\"ping\",\"progress\":3}");
        assertEquals(400, r.status(), r.body());
        assertTrue(r.body().contains("not a SeekBar"), r.body());
        r = cell.post("/ui/seekbar", "{\"id\":\"volume\",\"progress\":101}");
        assertEquals(400, r.status(), r.body());
        assertTrue(r.body().contains("outside 0..100"), r.body());
        r = cell.post("/ui/switch", "{\"id\":\"noise_reduction\"}");
        assertEquals(400, r.status(), r.body());
        r = cell.get("/ui/text");
        assertEquals(400, r.status(), r.body());
        r = cell.post("/apps/org.example.nothing/launch", "");
        assertEquals(404, r.status(), r.body());
        assertTrue(r.body().contains("unknown package 'org.example.nothing'"), r.body());
        assertEquals(404, cell.get("/nothing/here").status());
        assertEquals(405, cell.get("/shutdown").status());
    }

    @Test
    @Order(5)
    void pingTravelsThroughTheProxyAndThePongUpdatesTheUi() throws Exception {
        // Without an RT cell the proxy refuses, and the app shows why.
        cell.post("/ui/click", "{\"id\":\"ping\"}");
        cell.await("/ui/text?id=connection", b -> b.contains("Refused: RT cell not connected"), 10_000);

        rt = TestRtPeer.attach(region);
        cell.await("/proxy/stats", b -> b.contains("\"connected\":true"), 10_000);

        assertEquals(200, cell.post("/ui/click", "{\"id\":\"ping\"}").status());
        Frame f = rt.receive(10_000);
        assertNotNull(f, "the proxy wrote a frame");
        assertEquals(Frame.BODY_INTENT, f.bodyKind());
        assertEquals("echo", f.intent().channelString());
        assertEquals("org.rtdroid.echo.PING", f.intent().actionString());
        assertEquals(UI, f.intent().senderString());
        assertEquals(90, f.intent().senderPriority());
        byte[] payload = java.util.Arrays.copyOf(f.intent().payload().array(), f.intent().payload().length());
        Echo.Ping ping = new Echo.Ping();
        assertEquals(EchoCodec.OK, ping.decode(payload, 0, payload.length), "a Ping (bridge/contracts/echo.proto)");
        assertEquals(2, ping.number(), "second ping of the app");
        rt.send("echo", "org.rtdroid.echo.PONG", 90, payload, f.intent().correlationId());

        String text = cell.await("/ui/text?id=ping_result", b -> b.contains("Pong #2 in"), 10_000);
        assertTrue(text.contains("µs") || text.contains("ms"), text);
        String lat = cell.await("/latency", b -> b.contains("\"count\":1"), 5_000);
        assertTrue(lat.contains("\"androidShare\":{\"n\":1"), lat);
        String stats = cell.get("/proxy/stats").body();
        assertTrue(stats.contains("\"echo\":{\"out\":1,\"in\":1,\"refused\":1"), stats);
    }

    @Test
    @Order(6)
    void settingsGoOutAsConfigAndStatusRecordsShowUp() throws Exception {
        assertEquals(200, cell.post("/ui/seekbar", "{\"id\":\"volume\",\"progress\":73}").status());
        Frame f = rt.receive(10_000);
        assertNotNull(f);
        assertEquals("cochlear.config", f.intent().channelString());
        assertEquals("org.rtdroid.cochlear.SET_CONFIG", f.intent().actionString());
        Cochlear.SetConfig cfg = new Cochlear.SetConfig();
        assertEquals(CochlearCodec.OK, cfg.decode(f.intent().payload().array(), 0, f.intent().payload().length()));
        assertEquals(73, cfg.volume());
        assertEquals(0, cfg.noiseReduction());
        long corr = f.intent().correlationId();

        assertEquals(200, cell.post("/ui/switch", "{\"id\":\"noise_reduction\",\"checked\":true}").status());
        f = rt.receive(10_000);
        assertNotNull(f);
        assertEquals(CochlearCodec.OK, cfg.decode(f.intent().payload().array(), 0, f.intent().payload().length()));
        assertEquals(73, cfg.volume());
        assertEquals(1, cfg.noiseReduction());

        Cochlear.Status status = new Cochlear.Status().releases(1234).deadlineMisses(0).worstLatenessNanos(56_700)
                .volume(73).noiseReduction(1).inputRmsDbfs(-23.5f).outputRmsDbfs(-20.25f);
        rt.send("cochlear.status", "org.rtdroid.cochlear.CONFIG_ACK", 60, encode(status), corr);
        cell.await("/ui/text?id=releases", b -> b.contains("\"text\":\"1234\""), 10_000);
        assertTrue(cell.get("/ui/text?id=worst_lateness").body().contains("56.7 µs"));
        assertTrue(cell.get("/ui/text?id=applied").body().contains("Applied: volume 73, noise reduction on"));
        assertTrue(cell.get("/ui/text?id=levels").body().contains("in -23.5 dBFS"));
        byte[] png = cell.getBytes("/screenshot");
        Files.write(Paths.get("target/screenshots/configuration-ui-status.png"), png);
    }

    @Test
    @Order(7)
    void testAppBindsAServiceAndIsRefusedAnUndeclaredChannel() throws Exception {
        Path bundle = Bundles.testApp(Files.createDirectories(tmp.resolve("test-app")));
        CellProcess.Reply r = cell.post("/apps/install", bundleJson(bundle));
        assertEquals(200, r.status(), r.body());
        assertEquals(200, cell.post("/apps/" + TEST_APP + "/launch", "").status());

        cell.post("/ui/click", "{\"id\":\"bind\"}");
        cell.await("/ui/text?id=bound", b -> b.contains("bound:hello from " + TEST_APP), 10_000);

        cell.post("/ui/click", "{\"id\":\"send_undeclared\"}");
        String refusal = cell.await("/ui/text?id=refusal", b -> b.contains("does not declare"), 10_000);
        assertTrue(refusal.contains(TEST_APP + " does not declare channel 'cochlear.config'"), refusal);
        assertNull(rt.receive(300), "nothing reached the RT side");

        // Naming another package as the sender (even in the identity extra) is refused: the sender
        // is the calling code's package, stamped by the cell.
        cell.post("/ui/click", "{\"id\":\"send_as_another\"}");
        refusal = cell.await("/ui/text?id=refusal", b -> b.contains("is not the calling package"), 10_000);
        assertTrue(refusal.contains("sender 'org.rtdroid.cochlear.ui' is not the calling package '" + TEST_APP + "'"),
                refusal);
        assertNull(rt.receive(300), "nothing reached the RT side");

        // An RT frame reaches the receivers, among declaring apps, whose filters match.
        rt.send("echo", "org.rtdroid.test.HELLO", 10, new byte[] {1}, 0);
        cell.await("/ui/text?id=received", b -> b.contains("org.rtdroid.test.HELLO;"), 10_000);

        // Signed with the platform key, the app holds REALTIME_BROADCAST: its broadcast at sender
        // priority 90 is queued in the real-time lane and delivered.
        assertEquals(200, cell.post("/ui/click", "{\"id\":\"broadcast_rt\"}").status());
        cell.await("/ui/text?id=received", b -> b.contains("org.rtdroid.test.RT_HELLO;"), 10_000);
    }

    private static void assertNull(Object o, String why) {
        assertTrue(o == null, why);
    }

    @Test
    @Order(8)
    void anExceptionInAnAppCallbackMarksTheAppCrashedAndTheCellGoesOn() throws Exception {
        CellProcess.Reply r = cell.post("/ui/click", "{\"id\":\"crash\"}");
        assertEquals(500, r.status(), r.body());
        assertTrue(r.body().contains("deliberate crash in onClick"), r.body());
        String app = cell.get("/apps/" + TEST_APP).body();
        assertTrue(app.contains("\"state\":\"CRASHED\""), app);
        String logs = cell.get("/logcat?since=0").body();
        assertTrue(logs.contains("FATAL EXCEPTION in " + TEST_APP), "crash logged");
        assertTrue(logs.contains("org.rtdroid.android.cell.testapp.TestActivity.lambda$onCreate"), "with its stack");

        // A manifest receiver that throws, reached by an RT frame: crashed again, proxy unharmed.
        assertEquals(200, cell.post("/apps/" + TEST_APP + "/launch", "").status());
        cell.await("/apps/" + TEST_APP, b -> b.contains("\"state\":\"RUNNING\""), 5_000);
        rt.send("test.boom", "org.rtdroid.test.BOOM", 20, new byte[0], 0);
        cell.await("/apps/" + TEST_APP, b -> b.contains("\"state\":\"CRASHED\"") && b.contains("BoomReceiver"), 10_000);

        // The cell and the proxy still work for the other app.
        assertEquals(200, cell.post("/apps/" + UI + "/launch", "").status());
        cell.post("/ui/click", "{\"id\":\"ping\"}");
        Frame f = rt.receive(10_000);
        assertNotNull(f, "proxy still sends");
        rt.send("echo", "org.rtdroid.echo.PONG", 90, encode(new Echo.Ping().number(3)), f.intent().correlationId());
        cell.await("/ui/text?id=ping_result", b -> b.contains("Pong #3"), 10_000);
        assertTrue(cell.get("/state").body().contains("\"ready\":true"));
    }

    @Test
    @Order(9)
    void aFloodIntoAFullRingIsRefusedAndCountedNotQueued() throws Exception {
        // The test's RT side stops reading: 64 slots fill, the rest are refused to the app. Each
        // post moves the volume to a new value, so each makes exactly one send; the drain below
        // starts once the proxy has written or refused all of them (a send still on its way would
        // otherwise take a slot the drain frees, and count as if it had been queued).
        int volume = Integer.parseInt(statText(cell.get("/ui/text?id=volume_value").body(), "text"));
        String before = cell.get("/proxy/stats").body();
        long out0 = statLong(before, "framesOut");
        long full0 = statLong(before, "droppedFull");
        int sends = 90;
        for (int i = 0; i < sends; i++) {
            int progress = (volume + 1 + i) % 100;
            assertEquals(200, cell.post("/ui/seekbar", "{\"id\":\"volume\",\"progress\":" + progress + "}").status());
        }
        String stats = cell.await("/proxy/stats", b -> statLong(b, "framesOut") - out0
                + statLong(b, "droppedFull") - full0 == sends, 10_000);
        assertTrue(statLong(stats, "droppedFull") > full0, stats);
        assertTrue(stats.contains("\"frames_dropped_full\":"), stats);
        cell.await("/ui/text?id=connection", b -> b.contains("Refused: data ring for priority 70 is full"), 10_000);
        int drained = 0;
        while (rt.receive(500) != null) {
            drained++;
        }
        assertEquals(64, drained, "exactly the ring's 64 slots were written; nothing else was queued");
        assertEquals(200, cell.get("/state").status());
    }

    @Test
    @Order(10)
    void rtRestartIsNoticedAndTheProxyReconnects() throws Exception {
        rt.close();
        cell.await("/proxy/stats", b -> b.contains("\"connected\":false"), 10_000);
        rt = TestRtPeer.attach(region);
        cell.await("/proxy/stats", b -> b.contains("\"connected\":true") && b.contains("\"peerRestarts\":1,"),
                10_000);
        cell.post("/ui/click", "{\"id\":\"ping\"}");
        Frame f = rt.receive(10_000);
        assertNotNull(f, "sends resume after the RT cell restarted");
        rt.send("echo", "org.rtdroid.echo.PONG", 90, encode(new Echo.Ping().number(4)), f.intent().correlationId());
        cell.await("/ui/text?id=ping_result", b -> b.contains("Pong #4"), 10_000);
    }

    @Test
    @Order(11)
    void theSignerDecidesUpdatesAndTheProxysPermission() throws Exception {
        Path other = Bundles.otherKeystore(tmp);
        // An app signed by someone else than the platform: installed, but not granted the proxy's
        // signature permission, and its startService on the proxy fails in the app.
        String stranger = "org.rtdroid.stranger";
        Path strangerApk = Bundles.apk(Bundles.testApp(tmp.resolve("stranger"),
                Bundles.TEST_APP_MANIFEST.replace("package=\"" + TEST_APP + "\"", "package=\"" + stranger + "\"")), other);
        CellProcess.Reply r = cell.post("/apps/install", apkJson(strangerApk));
        assertEquals(200, r.status(), r.body());
        assertTrue(r.body().contains("\"permissions\":[]"), r.body());
        assertEquals(200, cell.post("/apps/" + stranger + "/launch", "").status());
        // It may not claim a real-time sender priority for its broadcasts (the exception crashes it).
        r = cell.post("/ui/click", "{\"id\":\"broadcast_rt\"}");
        assertEquals(500, r.status(), r.body());
        assertTrue(r.body().contains("SecurityException") && r.body().contains("Permission Denial: broadcast at "
                + "real-time sender priority 90 from " + stranger + " requires org.rtdroid.permission.REALTIME_BROADCAST"),
                r.body());
        assertEquals(200, cell.post("/apps/" + stranger + "/launch", "").status());
        r = cell.post("/ui/click", "{\"id\":\"send_undeclared\"}");
        assertEquals(500, r.status(), r.body());
        assertTrue(r.body().contains("SecurityException") && r.body().contains("Not allowed to start service")
                && r.body().contains("from " + stranger + " without permission org.rtdroid.permission.CROSS_CONTEXT"),
                r.body());
        assertTrue(cell.get("/logcat?since=0").body().contains("signature permission "
                + "org.rtdroid.permission.CROSS_CONTEXT not granted"), "the refused grant is logged");
        assertEquals(200, cell.delete("/apps/" + stranger).status());

        // The installed test app: another signer is refused, so is an older version.
        Path otherSigner = Bundles.apk(Bundles.testApp(tmp.resolve("test-app-other-signer")), other);
        r = cell.post("/apps/install", apkJson(otherSigner));
        assertEquals(409, r.status(), r.body());
        assertTrue(r.body().contains("INSTALL_FAILED_UPDATE_INCOMPATIBLE: package " + TEST_APP), r.body());
        Path older = Bundles.testApp(tmp.resolve("test-app-v2"),
                Bundles.TEST_APP_MANIFEST.replace("android:versionCode=\"3\"", "android:versionCode=\"2\""));
        r = cell.post("/apps/install", bundleJson(older));
        assertEquals(409, r.status(), r.body());
        assertTrue(r.body().contains("INSTALL_FAILED_VERSION_DOWNGRADE: package " + TEST_APP
                + " versionCode 2 is lower than the installed 3"), r.body());
    }

    @Test
    @Order(12)
    void fallAlertShowsEachFallTheRtCellPublishes() throws Exception {
        CellProcess.Reply r = cell.post("/apps/install", bundleJson(Bundles.fallAlert(Files.createDirectories(tmp.resolve("fall-alert")))));
        assertEquals(200, r.status(), r.body());
        assertTrue(r.body().contains("\"channels\":[\"fall.alert\"]"), r.body());
        r = cell.post("/apps/" + FALL + "/launch", "");
        assertEquals(200, r.status(), r.body());
        assertTrue(r.body().contains("FallAlertActivity"), r.body());
        cell.await("/ui/text?id=alert", b -> b.contains("\"text\":\"Monitoring: no fall\""), 10_000);
        assertEquals("{\"id\":\"falls\",\"text\":\"0\"}", cell.get("/ui/text?id=falls").body());

        // FALL (bridge/contracts/fall.proto)
        Fall.Alert fall = new Fall.Alert().impactNanos(123_456_789L).falls(1).peakG(4.3f).freeFallMs(210f);
        rt.send("fall.alert", "org.rtdroid.fall.FALL", 95, encode(fall), 0);
        cell.await("/ui/text?id=alert", b -> b.contains("\"text\":\"FALL DETECTED\""), 10_000);
        assertEquals("{\"id\":\"falls\",\"text\":\"1\"}", cell.get("/ui/text?id=falls").body());
        assertEquals("{\"id\":\"peak_g\",\"text\":\"4.3 g\"}", cell.get("/ui/text?id=peak_g").body());
        assertEquals("{\"id\":\"free_fall\",\"text\":\"210 ms\"}", cell.get("/ui/text?id=free_fall").body());
        assertEquals(200, cell.delete("/apps/" + FALL).status());
    }

    @Test
    @Order(13)
    void uninstallRemovesTheApp() throws Exception {
        assertEquals(200, cell.delete("/apps/" + TEST_APP).status());
        assertFalse(cell.get("/apps").body().contains(TEST_APP));
        assertEquals(404, cell.delete("/apps/" + TEST_APP).status());
        assertEquals(400, cell.delete("/apps/org.rtdroid.proxy").status(), "system app stays");
    }

    @Test
    @Order(14)
    void sigtermShutsTheCellDownCleanly() throws Exception {
        ProcessHandle h = cell.process.toHandle();
        assertTrue(h.isAlive());
        // SIGTERM through the handle: Process.destroy() would also close our end of its stdout.
        assertTrue(h.destroy());
        assertTrue(cell.process.waitFor(30, TimeUnit.SECONDS), "exited within 30 s");
        assertEquals(143, cell.process.exitValue(), "terminated by SIGTERM after the hook finished");
        cell.awaitOutputEnd();
        String out = String.join("\n", cell.stdout);
        assertTrue(out.contains("stop requested (signal)"), out);
        assertTrue(out.contains("proxy stopped"), out);
        assertTrue(out.contains("I/AndroidCell(android): stopped"), out);
        rt.close();
        assertEquals(3, rt.region.peerState(org.rtdroid.bridge.Region.ANDROID_PEER), "Android peer STOPPING");
    }

    /** A number field of the proxy's stats JSON (top level). */
    private static long statLong(String json, String field) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"" + field + "\":(-?\\d+)").matcher(json);
        assertTrue(m.find(), "no " + field + " in " + json);
        return Long.parseLong(m.group(1));
    }

    /** A string field of a control-port reply. */
    private static String statText(String json, String field) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"" + field + "\":\"([^\"]*)\"").matcher(json);
        assertTrue(m.find(), "no " + field + " in " + json);
        return m.group(1);
    }
}
