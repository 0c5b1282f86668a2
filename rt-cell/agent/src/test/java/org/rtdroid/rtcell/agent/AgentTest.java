package org.rtdroid.rtcell.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rtdroid.bridge.ConsumerRing;
import org.rtdroid.bridge.Region;
import org.rtdroid.bridge.RegionDescriptor.Counter;
import org.rtdroid.bridge.RegionLayout;
import org.rtdroid.bridge.RegionMemory;
import org.rtdroid.bridge.codec.Frame;
import org.rtdroid.bridge.codec.FrameCodec;
import org.rtdroid.rtcell.agent.client.ManagementClient;
import org.rtdroid.runtime.boot.CellConfig;
import org.rtdroid.runtime.boot.FailureCause;
import org.rtdroid.runtime.boot.RuntimeHost;

/** The agent against a real region and a real runtime, driven over the management ring like the CLI does. */
class AgentTest {
    static final long T = 10_000_000_000L;
    static final long BUDGET = 1L << 20;
    static KeyPair board;
    static KeyPair stranger;
    static byte[] echoJar;
    static byte[] brokenJar;

    @TempDir
    static Path shared;
    @TempDir
    Path work;

    RegionMemory memory;
    Region rt;
    RuntimeHost host;
    Agent agent;
    Thread serving;
    ServingAgent cell;
    ManagementClient client;
    final List<String> console = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void apps() throws Exception {
        board = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        stranger = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        echoJar = TestApps.echoJar(shared.resolve("echo"));
        brokenJar = TestApps.compileJar("rtapp/other/Other.java", "package rtapp.other; public class Other {}",
                shared.resolve("other"));
    }

    @BeforeEach
    void boot() throws Exception {
        host = RuntimeHost.start(CellConfig.unprivileged(BUDGET));
        // a kernel without uinput, as the host board's: the sensors say so instead of failing obscurely
        CellSensors sensors = CellSensors.open(work.resolve("uinput"), console::add);
        cell = new ServingAgent(region -> new Agent(region, host,
                new CellDeployments(host, board.getPublic(), work, DeployedVersions.inMemory()), sensors, null, console::add));
        memory = cell.memory;
        rt = cell.rt;
        agent = cell.agent;
        serving = cell.serving;
        client = cell.client;
    }

    @AfterEach
    void stop() throws Exception {
        cell.close();
    }

    /** Deploys {@code base}: the ticker, priority 40, 5 ms every 10 ms; returns the ticker's jar. */
    private byte[] deployBase() throws Exception {
        byte[] ticker = TestApps.tickerJar(work.resolve("ticker"));
        assertResult(ResultCode.OK, "", deploy("base", signed(TestApps.tickerManifest("base", 40, "5ms", "10ms"), ticker, board)));
        return ticker;
    }

    /** The cell lists base's services and nothing of {@code refused}. */
    private void assertOnlyBaseRuns(String refused) {
        assertEquals(List.of("base/Ticker", "base/Ticker/tick"),
                client.listServices(T).stream().map(x -> x.service().nameString()).toList(), "nothing of " + refused);
    }

    /**
     * The manifest of {@code app}: one {@code element} (service, receiver) of class rtapp.other.Other
     * at {@code priority}, 100 us every 10 ms, and {@code load} beside it (what makes it a hog).
     */
    private static byte[] hogManifest(String app, String element, int priority, String load) {
        return """
                <?xml version="1.0" encoding="UTF-8"?>
                <manifest versionCode="1">
                  <application name="%s">
                    <%s name="rtapp.other.Other" priority="%d" cost="100us" min-interarrival="10ms">
                      <memSizes total="8K" persistent="4K" release="4K"/>
                    </%s>
                    %s
                  </application>
                </manifest>
                """.formatted(app, element, priority, element, load).getBytes(StandardCharsets.UTF_8);
    }

    Frame.Control deploy(String name, Map<String, byte[]> entries) {
        return client.deploy(name, Bundle.zip(entries), T);
    }

    static Map<String, byte[]> signed(byte[] manifest, byte[] jar, KeyPair signer) {
        Map<String, byte[]> e = new LinkedHashMap<>();
        e.put("manifest.xml", manifest);
        e.put("app.jar", jar);
        e.put("signature.ed25519", Bundle.sign(manifest, jar, signer.getPrivate()));
        return e;
    }

    static void assertResult(int code, String textPart, Frame.Control c) {
        assertEquals(ResultCode.name(code), ResultCode.name(c.code()), c.textString());
        assertTrue(c.textString().contains(textPart), c.textString());
        assertTrue(c.text().length() <= 255);
    }

    @Test
    void signedBundleIsDeployedListedAndAnswersAPing() throws Exception {
        Frame.Control r = deploy("echo", signed(TestApps.manifest("echo"), echoJar, board));
        assertEquals(Frame.Control.DEPLOY_RESULT, r.kind());
        assertResult(ResultCode.OK, "deployed echo", r);
        assertEquals("echo", r.subjectString());
        assertTrue(console.contains("rtcell: deploy echo: OK"), console.toString());

        List<Frame.Control> rows = client.listServices(T);
        assertEquals(1, rows.size());
        Frame.ServiceInfo s = rows.get(0).service();
        assertEquals("echo/Echo", s.nameString());
        assertEquals(1, s.count());
        assertEquals(0, s.index());

        // the Android cell pings through the agent's RT proxy
        Region android = Region.attachCell(memory, Region.ANDROID_PEER, false);
        Frame f = new Frame().seq(1).sendTimeNanos(System.nanoTime());
        byte[] payload = "are you there".getBytes(StandardCharsets.UTF_8);
        f.selectIntent().action("org.rtdroid.echo.PING").channel("echo").sender("org.rtdroid.ui").senderPriority(80)
                .correlationId(77).payload().set(payload, 0, payload.length);
        byte[] buf = new byte[496];
        assertTrue(android.producer(1).offer(buf, 0, FrameCodec.encode(f, buf, 0)));
        ConsumerRing replies = android.consumer(1);
        long deadline = System.nanoTime() + T;
        int n;
        while ((n = replies.poll(buf)) == 0) {
            assertTrue(System.nanoTime() < deadline, "no PONG; proxy " + agent.proxy().stats());
            Thread.sleep(1);
        }
        Frame pong = new Frame();
        assertEquals(FrameCodec.OK, FrameCodec.decode(buf, 0, n, pong));
        assertEquals("org.rtdroid.echo.PONG", pong.intent().actionString());
        assertEquals(77, pong.intent().correlationId());
        assertArrayEquals(payload, pong.intent().payload().toByteArray());
        assertTrue(pong.intent().rtReplyNanos() >= pong.intent().rtReceiveNanos() && pong.intent().rtReceiveNanos() > 0);
        // the ping's callback is measured (its end follows the PONG it sends); no declared cost: not analysed
        long until = System.nanoTime() + T;
        while (row("echo/Echo").service().worstResponseNanos() == 0) {
            assertTrue(System.nanoTime() < until, "no measured worst response after the ping");
            Thread.sleep(1);
        }
        assertEquals(0L, row("echo/Echo").service().analysedWcrtNanos());

        Frame.Control stats = client.request(Frame.Control.STATS_REQUEST, "", T);
        assertEquals(Frame.Control.STATS, stats.kind());
        assertTrue(stats.hasStats());
        assertTrue(stats.stats().framesIn() >= 2, stats.stats().toString()); // chunks + the ping
        assertTrue(stats.stats().framesOut() >= 3, stats.stats().toString()); // answers + the pong
    }

    @Test
    void theTimelinesAnswerHoldsEachPeriodicReleaseWithItsPlannedAndActualIntervals() throws Exception {
        assertEquals(1, client.timelines(0, T).size(), "nothing deployed: one entry of count 0");
        assertEquals(0, client.timelines(0, T).get(0).timeline().count());
        deployBase();
        awaitReleases("base/Ticker/tick", 3);
        List<Frame.Control> answer = client.timelines(0, T);
        long cellNow = answer.get(0).timeline().cellNowNanos();
        long previousBegin = Long.MIN_VALUE;
        for (int i = 0; i < answer.size(); i++) {
            Frame.TimelineEntry e = answer.get(i).timeline();
            assertEquals(Frame.Control.TIMELINE, answer.get(i).kind());
            assertEquals(i, e.index());
            assertEquals(answer.size(), e.count());
            assertEquals("base/Ticker/tick", e.trackString(), "the one track: the task's releases");
            assertEquals(2, e.kind());
            assertTrue(e.tid() > 0, "the kernel thread that ran it");
            assertTrue(e.plannedEndNanos() - e.plannedBeginNanos() == 10_000_000L, "planned: release to deadline");
            assertTrue(e.actualBeginNanos() >= e.plannedBeginNanos() && e.actualEndNanos() >= e.actualBeginNanos()
                    && e.actualEndNanos() <= cellNow, e.toString());
            assertTrue(e.actualBeginNanos() > previousBegin, "oldest first");
            previousBegin = e.actualBeginNanos();
            assertEquals(cellNow, e.cellNowNanos());
        }
        assertTrue(answer.size() >= 3, answer.size() + " releases");
        // those that ended in the last second only: the newest stay, the count says how many
        Thread.sleep(1100);
        long before = System.nanoTime();
        for (Frame.Control c : client.timelines(1, T)) {
            assertTrue(c.timeline().actualEndNanos() >= before - 1_000_000_000L, c.toString());
        }
    }

    @Test
    void unsignedBundleIsRefused() {
        Map<String, byte[]> e = signed(TestApps.manifest("echo"), echoJar, board);
        e.remove("signature.ed25519");
        assertResult(ResultCode.BAD_SIGNATURE, "unsigned", deploy("echo", e));
        assertTrue(console.stream().anyMatch(l -> l.startsWith("rtcell: deploy echo: BAD_SIGNATURE")), console.toString());
    }

    @Test
    void tamperedManifestIsRefused() {
        Map<String, byte[]> e = signed(TestApps.manifest("echo"), echoJar, board);
        e.put("manifest.xml", TestApps.manifest("echo", 512 * 1024));
        assertResult(ResultCode.BAD_SIGNATURE, "does not verify", deploy("echo", e));
    }

    @Test
    void tamperedJarIsRefused() {
        Map<String, byte[]> e = signed(TestApps.manifest("echo"), echoJar, board);
        byte[] jar = echoJar.clone();
        jar[jar.length / 2] ^= 1;
        e.put("app.jar", jar);
        assertResult(ResultCode.BAD_SIGNATURE, "does not verify", deploy("echo", e));
    }

    @Test
    void bundleSignedWithAnotherKeyIsRefused() {
        assertResult(ResultCode.BAD_SIGNATURE, "deploy key", deploy("echo", signed(TestApps.manifest("echo"), echoJar, stranger)));
    }

    @Test
    void extraZipEntryIsRefused() {
        Map<String, byte[]> e = signed(TestApps.manifest("echo"), echoJar, board);
        e.put("README", new byte[] {1});
        assertResult(ResultCode.BAD_BUNDLE, "README", deploy("echo", e));
    }

    @Test
    void brokenManifestIsRefusedWithItsLine() {
        byte[] broken = "<manifest>\n  <application name=\"echo\">\n    <receiver name=\"rtapp.echo.Echo\"/>\n  </application>\n</manifest>\n"
                .getBytes(StandardCharsets.UTF_8);
        Frame.Control r = deploy("echo", signed(broken, echoJar, board));
        assertResult(ResultCode.BAD_MANIFEST, "echo/manifest.xml:3:", r);
        Frame.Control notXml = deploy("echo", signed("<manifest><oops".getBytes(StandardCharsets.UTF_8), echoJar, board));
        assertResult(ResultCode.BAD_MANIFEST, "manifest.xml:1", notXml);
    }

    /**
     * Issue 38 defect 1: an application name with a newline (an XML character reference) was
     * refused, but the reason went raw into the console, where a line began with the board's own
     * readiness marker. Now every record and every answer is one line, and no record begins with
     * anything but the agent's own prefix.
     */
    @Test
    void nothingABundleOrAFrameSaysCanStartALineOfTheConsole() {
        String forged = "abs&#10;RTCELL READY&#13;&#x2028;x";
        byte[] manifest = new String(TestApps.manifest("echo"), StandardCharsets.UTF_8)
                .replace("name=\"echo\"", "name=\"" + forged + "\"").getBytes(StandardCharsets.UTF_8);
        Frame.Control byName = deploy("echo", signed(manifest, echoJar, board));
        assertResult(ResultCode.BAD_MANIFEST, "abs\\nRTCELL READY\\r\\u2028x", byName);
        Frame.Control byFrame = deploy("abs\nRTCELL READY", signed(TestApps.manifest("echo"), echoJar, board));
        assertEquals(ResultCode.name(ResultCode.BAD_MANIFEST), ResultCode.name(byFrame.code()), byFrame.textString());
        Map<String, byte[]> entries = signed(TestApps.manifest("echo"), echoJar, board);
        entries.put("x\nRTCELL READY", new byte[1]);
        Frame.Control byEntry = deploy("echo", entries);
        assertEquals(ResultCode.name(ResultCode.BAD_BUNDLE), ResultCode.name(byEntry.code()), byEntry.textString());
        Frame.Control undeploy = client.request(Frame.Control.UNDEPLOY, "gone\rRTCELL READY", T);
        assertEquals(ResultCode.name(ResultCode.NOT_FOUND), ResultCode.name(undeploy.code()), undeploy.textString());
        for (Frame.Control c : List.of(byName, byFrame, byEntry, undeploy)) {
            assertTrue(c.textString().chars().noneMatch(ch -> ch == '\n' || ch == '\r' || ch == 0x2028), c.textString());
        }
        assertTrue(console.size() >= 4, console.toString());
        for (String line : console) {
            assertTrue(line.chars().noneMatch(ch -> ch == '\n' || ch == '\r' || ch == 0x2028), line);
            assertTrue(line.startsWith("rtcell: "), line);
        }
    }

    @Test
    void manifestNamedDifferentlyFromTheBundleIsRefused() {
        assertResult(ResultCode.BAD_MANIFEST, "differs from the bundle name",
                deploy("other", signed(TestApps.manifest("echo"), echoJar, board)));
    }

    @Test
    void overBudgetIsRefused() {
        assertResult(ResultCode.OVER_BUDGET, "budget", deploy("big", signed(TestApps.manifest("big", 2L << 20), echoJar, board)));
        assertEquals(0, client.listServices(T).get(0).service().count());
    }

    @Test
    void missingClassIsLoadFailed() {
        assertResult(ResultCode.LOAD_FAILED, "rtapp.echo.Echo", deploy("echo", signed(TestApps.manifest("echo"), brokenJar, board)));
    }

    @Test
    void anUnschedulableBundleIsRefusedBeforeAnyClassLoadsAndWhatRunsKeepsRunning() throws Exception {
        deployBase();
        long before = awaitReleases("base/Ticker/tick", 1);
        // hog's jar lacks its class: loading it would be LOAD_FAILED; admission refuses first.
        Frame.Control r = deploy("hog", signed(TestApps.tickerManifest("hog", 60, "6ms", "10ms"), brokenJar, board));
        assertResult(ResultCode.UNSCHEDULABLE, "UNSCHEDULABLE: base/tick WCRT 11 ms > deadline 10 ms", r);
        assertOnlyBaseRuns("hog");
        awaitReleases("base/Ticker/tick", before + 1);
        assertEquals("RUNNING", row("base/Ticker/tick").service().stateString());
    }

    @Test
    void anUnschedulableAlarmLoadIsRefusedNamingTheAlarmThread() throws Exception {
        deployBase();
        // 64 alarms of 200 us each may fire within 10 ms: 12.8 ms of the alarm thread's time.
        byte[] alarms = hogManifest("alarmhog", "receiver", 30,
                "<alarms capacity=\"64\" strategy=\"bound\" min-interarrival=\"10ms\" fire-cost=\"200us\"/>");
        assertResult(ResultCode.UNSCHEDULABLE, "UNSCHEDULABLE: alarm-thread WCRT 12800 us > deadline 10 ms",
                deploy("alarmhog", signed(alarms, brokenJar, board)));
        assertOnlyBaseRuns("alarmhog");
    }

    @Test
    void anUnschedulableSensorLoadIsRefusedNamingThePollingThread() throws Exception {
        deployBase();
        // A frame of each of the two devices every 1 ms, 600 us each: 1.2 ms of the polling thread's time,
        // which fits on no CPU; the accelerometer's processing thread (inheriting 50 from the listener,
        // 200 us every 1 ms) fits above base's ticker.
        byte[] sensors = hogManifest("sensorhog", "service", 50, "<sensors listeners=\"2\" queue=\"16\" strategy=\"bound\""
                + " min-interarrival=\"1ms\" frame-cost=\"600us\" types=\"accelerometer\"/>");
        assertResult(ResultCode.UNSCHEDULABLE, "UNSCHEDULABLE: sensor-poll WCRT 1200 us > deadline 1 ms",
                deploy("sensorhog", signed(sensors, brokenJar, board)));
        assertOnlyBaseRuns("sensorhog");
    }

    @Test
    void aSchedulableSecondAppIsAdmitted() throws Exception {
        byte[] ticker = deployBase();
        assertResult(ResultCode.OK, "", deploy("second", signed(TestApps.tickerManifest("second", 50, "2ms", "20ms"), ticker, board)));
        // LIST_SERVICES shows the admission analysis beside the measured worst response: second's
        // tick preempts base's (WCRT 5 + 2 ms); the service rows carry no work of their own.
        assertEquals(7_000_000L, row("base/Ticker/tick").service().analysedWcrtNanos());
        assertEquals(2_000_000L, row("second/Ticker/tick").service().analysedWcrtNanos());
        assertEquals(0L, row("base/Ticker").service().analysedWcrtNanos(), "not analysed");
        awaitReleases("base/Ticker/tick", 1);
        assertTrue(row("base/Ticker/tick").service().worstResponseNanos() > 0, "measured");
        // and the CPU time a release used beside the cost the analysis assumed (the tick's wcet), which
        // the ticker's near-empty release stays far below
        Frame.ServiceInfo tick = row("base/Ticker/tick").service();
        assertEquals(5_000_000L, tick.analysedCostNanos());
        assertTrue(tick.worstExecutionNanos() > 0 && tick.worstExecutionNanos() < 5_000_000L, "measured: " + tick);
        assertEquals(0L, tick.costOverruns());
        assertEquals(0L, row("base/Ticker").service().analysedCostNanos(), "none declared");
        Map<String, byte[]> third = signed(TestApps.tickerManifest("third", 50, "5ms", "20ms"), ticker, board);
        assertResult(ResultCode.UNSCHEDULABLE, "UNSCHEDULABLE: base/tick WCRT 12 ms > deadline 10 ms", deploy("third", third));
        assertEquals(Frame.Control.ACK, client.request(Frame.Control.UNDEPLOY, "second", T).kind());
        // An undeployed app leaves the analysis: third fits beside base alone (WCRT 10 ms).
        assertResult(ResultCode.OK, "", deploy("third", third));
        assertEquals(10_000_000L, row("base/Ticker/tick").service().analysedWcrtNanos(), "analysed again with third");
    }

    private Frame.Control row(String name) {
        return client.listServices(T).stream().filter(x -> x.service().nameString().equals(name)).findFirst().orElseThrow();
    }

    /** Polls until the service has at least {@code releases} releases; @return how many it has. */
    private long awaitReleases(String name, long releases) throws InterruptedException {
        long deadline = System.nanoTime() + T;
        long n;
        while ((n = row(name).service().releases()) < releases) {
            assertTrue(System.nanoTime() < deadline, name + " stopped releasing at " + n);
            Thread.sleep(5);
        }
        return n;
    }

    @Test
    void duplicateIsRefused() {
        assertResult(ResultCode.OK, "", deploy("echo", signed(TestApps.manifest("echo"), echoJar, board)));
        assertResult(ResultCode.DUPLICATE, "already deployed", deploy("echo", signed(TestApps.manifest("echo"), echoJar, board)));
    }

    @Test
    void aFailedServiceSaysWhyInItsServiceInfo() throws Exception {
        byte[] jar = TestApps.failingJar(work.resolve("failing"));
        assertResult(ResultCode.OK, "", deploy("implant", signed(TestApps.failingManifest("implant"), jar, board)));
        long deadline = System.nanoTime() + T;
        List<Frame.Control> rows;
        while (!(rows = client.listServices(T)).get(0).service().stateString().equals("FAILED")) {
            assertTrue(System.nanoTime() < deadline, "the service did not fail");
            Thread.sleep(5);
        }
        for (Frame.Control row : rows) { // the component and its task
            assertEquals("java.lang.IllegalStateException", row.subjectString(), row.service().nameString());
            String[] lines = row.textString().split("\n");
            assertEquals("release 3 task sample", lines[0]);
            assertEquals("sensor gone: electrode 3 open", lines[1]);
            assertTrue(lines[2].startsWith("at ") && lines[2].contains("rtapp.failing.Sensor.read(Sensor.java:"), lines[2]);
            assertTrue(lines[3].contains("rtapp.failing.Sensor$1.onRelease(Sensor.java:"), lines[3]);
            assertTrue(row.text().length() <= 255);
        }
        assertEquals("implant/Sensor", rows.get(0).service().nameString());
        assertEquals("implant/Sensor/sample", rows.get(1).service().nameString());
    }

    @Test
    void aHealthyServiceInfoHasNoCause() {
        assertResult(ResultCode.OK, "", deploy("echo", signed(TestApps.manifest("echo"), echoJar, board)));
        Frame.Control row = client.listServices(T).get(0);
        assertEquals("", row.subjectString());
        assertEquals("", row.textString());
    }

    @Test
    void aCauseTextKeepsWholeFramesWithinItsBound() {
        FailureCause cause = new FailureCause("java.lang.IllegalStateException", "x".repeat(40), "sample", 12,
                List.of("a.B.c(B.java:1)", "a.B.d(B.java:2)", "a.B.e(B.java:3)"));
        assertEquals("release 12 task sample\n" + "x".repeat(40) + "\nat a.B.c(B.java:1)\nat a.B.d(B.java:2)"
                + "\nat a.B.e(B.java:3)", ManagementLoop.causeText(cause, 255));
        String cut = ManagementLoop.causeText(cause, 90);
        assertEquals("release 12 task sample\n" + "x".repeat(40) + "\nat a.B.c(B.java:1)", cut);
        assertEquals("release 12 task sample\n" + "x".repeat(10), ManagementLoop.causeText(cause, 33));
        FailureCause utf8 = new FailureCause("E", "\u00e9\u00e9", null, 0, List.of());
        assertEquals("release 0\n\u00e9", ManagementLoop.causeText(utf8, 13), "a character is never split");
        String longName = "org.a.very.long.package.name.that.goes.on.and.on.lang.IllegalStateException";
        assertEquals("package.name.that.goes.on.and.on.lang.IllegalStateException", ManagementLoop.className(longName),
                "leading package names go first, the class name stays");
    }

    @Test
    void aCauseFitsASmallSlot() throws Exception {
        // a 256-byte slot leaves the cause text about 100 bytes: the answer is still sent, cut
        RegionLayout small = RegionLayout.of(3, 64, 256);
        RegionMemory mem = RegionMemory.wrap(ByteBuffer.allocateDirect(small.regionBytes()));
        Region.format(mem, small);
        Region cell = Region.attachCell(mem, Region.RT_PEER, true);
        List<String> lines = new CopyOnWriteArrayList<>();
        FailureCause cause = new FailureCause("java.lang.IllegalStateException", "m".repeat(300), "sample", 3,
                List.of("a.B.c(B.java:1)"));
        Deployments failed = new Deployments() {
            public Deployment deploy(String expectedName, byte[] bundle) { return new Deployment("x", 1, 0); }
            public void undeploy(String name) {}
            public void undeployAll() {}
            public List<ServiceRow> services() {
                return List.of(new ServiceRow("implant/Sensor", "FAILED", 3, 0, 0, 0, 0, cause));
            }
        };
        ManagementLoop loop = new ManagementLoop(cell, failed, Frame.Stats::new, () -> "test", lines::add);
        Thread t = new Thread(() -> loop.run(new org.rtdroid.bridge.Backoff(0, 10, 50_000L, 1_000_000L)), "agent-small");
        t.start();
        try {
            ManagementClient c = new ManagementClient(Region.attachManagement(mem, Region.ANDROID_PEER));
            Frame.Control row;
            try {
                row = c.listServices(T / 5).get(0);
            } catch (IllegalStateException e) {
                throw new AssertionError("no answer; agent console " + lines, e);
            }
            assertEquals("FAILED", row.service().stateString(), lines.toString());
            assertTrue(row.textString().startsWith("release 3 task sample\nmmm"), row.textString());
            assertTrue(lines.stream().noneMatch(l -> l.contains("cannot encode")), lines.toString());
            assertEquals(0, loop.answersDropped());
        } finally {
            loop.stop();
            t.join(5000);
        }
    }

    @Test
    void withoutUinputTheSensorsSayWhyAndATraceIsRefusedWithTheReason() {
        String reason = "sensors unavailable: this kernel has no " + work.resolve("uinput");
        Frame.Control status = client.request(Frame.Control.SENSOR_STATUS, "", T);
        assertEquals(Frame.Control.ERROR, status.kind());
        assertResult(ResultCode.SENSORS_UNAVAILABLE, reason, status);
        // the trace is checked whole first, so a broken one is named with its line even here
        Frame.Control broken = client.replay("fall.trace",
                "# t_ms ax ay az gx gy gz\n0 0 0 9.81\n".getBytes(StandardCharsets.US_ASCII), T);
        assertEquals(Frame.Control.ERROR, broken.kind());
        assertResult(ResultCode.BAD_TRACE, "fall.trace:2: expected 7 numbers (t_ms ax ay az gx gy gz), found 4", broken);
        Frame.Control replay = client.replay("fall.trace",
                "0 0 0 9.81 0 0 0\n10 0 0 9.81 0 0 0\n".getBytes(StandardCharsets.US_ASCII), T);
        assertEquals(Frame.Control.ERROR, replay.kind());
        assertEquals("fall.trace", replay.subjectString());
        assertResult(ResultCode.SENSORS_UNAVAILABLE, reason, replay);
        assertTrue(console.contains("rtcell: replay fall.trace: SENSORS_UNAVAILABLE: " + reason), console.toString());
        assertTrue(console.contains("rtcell: " + reason), "said at start-up: " + console);
        // a bundle after a trace is still a bundle
        assertResult(ResultCode.OK, "deployed echo", deploy("echo", signed(TestApps.manifest("echo"), echoJar, board)));
    }

    @Test
    void undeployAndListServices() {
        Frame.Control none = client.listServices(T).get(0);
        assertEquals(Frame.Control.SERVICE_INFO, none.kind());
        assertEquals(0, none.service().count());
        assertResult(ResultCode.OK, "", deploy("echo", signed(TestApps.manifest("echo"), echoJar, board)));
        assertResult(ResultCode.OK, "", deploy("echo2", signed(TestApps.manifest("echo2"), echoJar, board)));
        List<Frame.Control> rows = client.listServices(T);
        assertEquals(2, rows.size());
        assertEquals("echo/Echo", rows.get(0).service().nameString());
        assertEquals("echo2/Echo", rows.get(1).service().nameString());
        assertEquals(2, rows.get(1).service().count());
        assertEquals(1, rows.get(1).service().index());

        Frame.Control ack = client.request(Frame.Control.UNDEPLOY, "echo", T);
        assertEquals(Frame.Control.ACK, ack.kind());
        assertEquals("echo", ack.subjectString());
        assertTrue(console.contains("rtcell: undeploy echo: OK"), console.toString());
        assertEquals(1, client.listServices(T).size());
        Frame.Control err = client.request(Frame.Control.UNDEPLOY, "echo", T);
        assertEquals(Frame.Control.ERROR, err.kind());
        assertResult(ResultCode.NOT_FOUND, "echo", err);
        // the name and the channel are free again
        assertResult(ResultCode.OK, "", deploy("echo", signed(TestApps.manifest("echo"), echoJar, board)));
    }

    @Test
    void olderVersionAfterAnUndeployIsRefusedOverTheRingWithBothVersions() {
        assertResult(ResultCode.OK, "", deploy("echo", signed(TestApps.versioned("echo", 3), echoJar, board)));
        assertEquals(Frame.Control.ACK, client.request(Frame.Control.UNDEPLOY, "echo", T).kind());
        Frame.Control r = deploy("echo", signed(TestApps.versioned("echo", 2), echoJar, board));
        assertEquals(Frame.Control.DEPLOY_RESULT, r.kind());
        assertResult(ResultCode.DOWNGRADE, "echo version 2 < deployed 3", r);
        assertTrue(console.stream().anyMatch(l -> l.startsWith("rtcell: deploy echo: DOWNGRADE: echo version 2 < deployed 3")),
                console.toString());
        assertResult(ResultCode.OK, "deployed echo version 3", deploy("echo", signed(TestApps.versioned("echo", 3), echoJar, board)));
        assertEquals(Frame.Control.ACK, client.request(Frame.Control.UNDEPLOY, "echo", T).kind());
        byte[] v2 = TestApps.versioned("echo", 2);
        assertResult(ResultCode.OK, "deployed echo version 2, downgraded from 3 (bundle signed for it)",
                client.deploy("echo", Bundle.buildDowngrade(v2, echoJar, board.getPrivate()), T));
        assertTrue(console.contains("rtcell: deploy echo: version 2 replaces 3 (a downgrade, signed for it)"),
                console.toString());
    }

    @Test
    void chunkErrorsAreBadChunk() {
        byte[] bundle = Bundle.zip(signed(TestApps.manifest("echo"), echoJar, board));
        CRC32 crc = new CRC32();
        crc.update(bundle);
        int c = (int) crc.getValue();
        int count = (bundle.length + 383) / 384;
        // out of order
        client.sendChunk("echo", 0, count, bundle.length, c, bundle, 0, 384, T);
        client.sendChunk("echo", 2, count, bundle.length, c, bundle, 768, 384, T);
        assertResult(ResultCode.BAD_CHUNK, "out of order, expected 1", client.awaitControl(System.nanoTime() + T));
        // wrong CRC of the whole: a complete, well-ordered sequence
        byte[] small = new byte[100];
        client.sendChunk("echo", 0, 1, 100, 12345, small, 0, 100, T);
        assertResult(ResultCode.BAD_CHUNK, "CRC-32", client.awaitControl(System.nanoTime() + T));
        // over 16 MiB
        client.sendChunk("echo", 0, 50000, 17 << 20, 0, small, 0, 100, T);
        assertResult(ResultCode.BAD_CHUNK, "total_bytes", client.awaitControl(System.nanoTime() + T));
        // and a good deployment still goes through afterwards
        assertResult(ResultCode.OK, "", client.deploy("echo", bundle, T));
    }

    @Test
    void helloNamesVersionAndKernel() {
        Frame.Control h = client.request(Frame.Control.HELLO, "", T);
        assertEquals(Frame.Control.HELLO, h.kind());
        assertTrue(h.textString().contains("rt-cell-agent " + Agent.VERSION), h.textString());
        assertTrue(h.textString().matches(".*realtime=[01].*"), h.textString());
        // the kernel's real-time throttle, whole numbers as /proc has them (not their first digits)
        String throttle = Agent.kernelRtThrottle();
        assertTrue(h.textString().contains("; rt throttle " + throttle + " (" + ThrottleProbe.result() + ");"), h.textString());
        assertEquals(readWhole("sched_rt_runtime_us") + "/" + readWhole("sched_rt_period_us") + " us", throttle);
        // the proxy's scheduling as it is when asked, not as it was meant to be
        assertTrue(h.textString().matches(".*; proxy (starting \\(SCHED_OTHER\\)|SCHED_FIFO 1|SCHED_OTHER), budget demotions \\d+"),
                h.textString());
    }

    private static String readWhole(String sysctl) {
        try {
            Process p = new ProcessBuilder("cat", "/proc/sys/kernel/" + sysctl).start();
            return new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void garbageOnTheManagementRingNeverCrashesTheAgent() throws Exception {
        java.util.Random random = new java.util.Random(42);
        byte[] junk = new byte[496];
        for (int i = 0; i < 500; i++) {
            int len = 1 + random.nextInt(junk.length);
            random.nextBytes(junk);
            client.sendRaw(junk, len, T);
        }
        // well-formed frames that are not requests
        Frame f = new Frame().seq(1);
        f.selectIntent().channel("echo");
        byte[] buf = new byte[496];
        client.sendRaw(buf, FrameCodec.encode(f, buf, 0), T);
        f.clear().seq(2).selectControl().kind(Frame.Control.DEPLOY_RESULT);
        client.sendRaw(buf, FrameCodec.encode(f, buf, 0), T);
        // a chunk claiming a huge bundle, then abandoned
        client.sendChunk("x", 0, 3, 16 << 20, 0, buf, 0, 10, T);
        Frame.Control h = client.request(Frame.Control.HELLO, "", T);
        assertEquals(Frame.Control.HELLO, h.kind());
        assertTrue(serving.isAlive());
        assertTrue(agent.management().dropped() >= 2, "dropped " + agent.management().dropped());
        long undeliverable = rt.counters(Region.ANDROID_PEER, 0).get(Counter.FRAMES_UNDELIVERABLE);
        assertEquals(agent.management().dropped(), undeliverable);
        // the abandoned exchange does not block the next deployment
        assertResult(ResultCode.OK, "", deploy("echo", signed(TestApps.manifest("echo"), echoJar, board)));
        assertTrue(Files.isDirectory(work));
    }

    /**
     * SENSOR_STATUS carries the lanes' device-to-listener latencies after the sensors' status, as
     * many whole lanes as one answer's 255 bytes hold; the rest are counted and go to the console.
     */
    @Test
    void sensorStatusCarriesTheLanesThatFitAndTheRestGoToTheConsole() {
        String status = "sensors: accelerometer rtdroid-accelerometer, gyroscope rtdroid-gyroscope; idle; last replay"
                + " no-fall.trace: 1400 samples written";
        List<String> console = new CopyOnWriteArrayList<>();
        assertEquals(status, ManagementLoop.withDelivery(status, "", console::add));
        String lane = "fall accelerometer@95/cpu0 n=1402 p50<=1049.2us p99<=1106.5us max=12117.8us";
        assertEquals(status + "; device to listener: " + lane, ManagementLoop.withDelivery(status, lane, console::add));
        assertEquals(List.of(), console);
        String three = lane + "; autopilot gyroscope@80/cpu1 n=9000 p50<=90.1us p99<=200.0us max=300.5us; "
                + "autopilot orientation@70/cpu1 n=9000 p50<=95.0us p99<=210.0us max=330.5us";
        String text = ManagementLoop.withDelivery(status, three, console::add);
        assertTrue(text.getBytes(StandardCharsets.UTF_8).length <= 255, text);
        assertTrue(text.startsWith(status + "; device to listener: "), text);
        assertTrue(text.endsWith(" lanes on the console)"), text);
        assertEquals(List.of("rtcell: sensor delivery, device to listener: " + three), console);
    }
}
