package org.rtdroid.rtcell.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rtdroid.runtime.boot.CellConfig;
import org.rtdroid.runtime.boot.RuntimeHost;

/**
 * Rollback protection: the cell refuses a bundle older than the version it deployed last, across
 * undeploys and across restarts of the agent with the same state directory, unless the bundle is
 * signed as a downgrade. Real runtime, real signatures, real files.
 */
class VersionsTest {
    static KeyPair board;
    static byte[] echoJar;
    /** A jar without the manifest's component class: the deployment fails at load. */
    static byte[] brokenJar;
    RuntimeHost host;

    @TempDir
    Path work;
    @TempDir
    Path state;

    @BeforeAll
    static void apps(@TempDir Path shared) throws Exception {
        board = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        echoJar = TestApps.echoJar(shared.resolve("echo"));
        brokenJar = TestApps.compileJar("rtapp/other/Other.java", "package rtapp.other; public class Other {}",
                shared.resolve("other"));
    }

    @AfterEach
    void stop() {
        if (host != null) {
            host.shutdown();
        }
    }

    /** A cell as the agent starts one: a fresh runtime, and the version record of {@code versions}. */
    CellDeployments cell(DeployedVersions versions) throws IOException {
        if (host != null) {
            host.shutdown(); // the previous incarnation of the cell
        }
        host = RuntimeHost.start(CellConfig.unprivileged(1L << 20));
        return new CellDeployments(host, board.getPublic(), work.resolve("cell-" + System.nanoTime()), versions);
    }

    static byte[] echo(int version) {
        return Bundle.build(TestApps.versioned("echo", version), echoJar, board.getPrivate());
    }

    static DeployRefusal refused(int code, CellDeployments cell, byte[] bundle) {
        DeployRefusal r = assertThrows(DeployRefusal.class, () -> cell.deploy("echo", bundle));
        assertEquals(ResultCode.name(code), ResultCode.name(r.code()), r.reason());
        assertTrue(r.reason().length() <= 255, r.reason());
        return r;
    }

    @Test
    void olderVersionIsRefusedAfterAnUndeployAndTheSameVersionIsNot() throws Exception {
        CellDeployments cell = cell(DeployedVersions.inMemory());
        assertEquals(new Deployments.Deployment("echo", 3, 0), cell.deploy("echo", echo(3)));
        cell.undeploy("echo");
        DeployRefusal r = refused(ResultCode.DOWNGRADE, cell, echo(2));
        assertTrue(r.reason().startsWith("echo version 2 < deployed 3; "), r.reason());
        assertTrue(r.reason().contains("--allow-downgrade"), r.reason());
        assertEquals(3, cell.deployedVersion("echo"));
        cell.deploy("echo", echo(3)); // the same release again after an undeploy: allowed
        cell.undeploy("echo");
        cell.deploy("echo", echo(4));
        assertEquals(4, cell.deployedVersion("echo"));
    }

    @Test
    void olderVersionIsRefusedAfterTheAgentRestartsWithTheSameStateDirectory() throws Exception {
        CellDeployments first = cell(DeployedVersions.open(state));
        first.deploy("echo", echo(5));
        first.undeployAll();
        String file = Files.readString(state.resolve(DeployedVersions.FILE_NAME));
        assertEquals(DeployedVersions.HEADER + "\necho 5\n", file);

        CellDeployments second = cell(DeployedVersions.open(state));
        DeployRefusal r = refused(ResultCode.DOWNGRADE, second, echo(4));
        assertTrue(r.reason().startsWith("echo version 4 < deployed 5"), r.reason());
        second.deploy("echo", echo(5));

        CellDeployments forgetful = cell(DeployedVersions.open(work.resolve("another-state-dir")));
        forgetful.deploy("echo", echo(4)); // a different state directory knows nothing: the control case
    }

    @Test
    void downgradeSignedForThatPurposeIsDeployedAndLowersTheRecord() throws Exception {
        CellDeployments cell = cell(DeployedVersions.open(state));
        cell.deploy("echo", echo(3));
        cell.undeploy("echo");
        Deployments.Deployment d = cell.deploy("echo",
                Bundle.buildDowngrade(TestApps.versioned("echo", 2), echoJar, board.getPrivate()));
        assertTrue(d.downgrade());
        assertEquals("deployed echo version 2, downgraded from 3 (bundle signed for it)", d.describe());
        assertEquals(2, cell.deployedVersion("echo"));
        cell.undeploy("echo");
        cell.deploy("echo", echo(2)); // version 2 is now the one deployed last
        cell.undeploy("echo");
        refused(ResultCode.DOWNGRADE, cell, echo(1));
        assertEquals(2, DeployedVersions.open(state).of("echo"));
    }

    @Test
    void ordinaryBundleRelabelledAsDowngradeIsRefused() throws Exception {
        CellDeployments cell = cell(DeployedVersions.inMemory());
        cell.deploy("echo", echo(3));
        cell.undeploy("echo");
        byte[] manifest = TestApps.versioned("echo", 2);
        Map<String, byte[]> e = new LinkedHashMap<>();
        e.put(Bundle.MANIFEST_ENTRY, manifest);
        e.put(Bundle.JAR_ENTRY, echoJar);
        e.put(Bundle.DOWNGRADE_SIGNATURE_ENTRY, Bundle.sign(manifest, echoJar, board.getPrivate()));
        DeployRefusal r = refused(ResultCode.BAD_SIGNATURE, cell, Bundle.zip(e));
        assertTrue(r.reason().contains("does not verify as a downgrade signature"), r.reason());
        // and the other way round: a downgrade signature under the ordinary name verifies as nothing
        e.remove(Bundle.DOWNGRADE_SIGNATURE_ENTRY);
        e.put(Bundle.SIGNATURE_ENTRY, Bundle.signDowngrade(manifest, echoJar, board.getPrivate()));
        refused(ResultCode.BAD_SIGNATURE, cell, Bundle.zip(e));
        assertEquals(3, cell.deployedVersion("echo"));
    }

    @Test
    void bundleWithoutVersionCodeIsRefused() throws Exception {
        CellDeployments cell = cell(DeployedVersions.inMemory());
        byte[] manifest = new String(TestApps.manifest("echo"), StandardCharsets.UTF_8)
                .replace(" versionCode=\"1\"", "").getBytes(StandardCharsets.UTF_8);
        DeployRefusal r = refused(ResultCode.BAD_MANIFEST, cell, Bundle.build(manifest, echoJar, board.getPrivate()));
        assertTrue(r.reason().startsWith("echo/manifest.xml: <manifest>: missing attribute 'versionCode'"), r.reason());
        assertEquals(0, cell.deployedVersion("echo"));
    }

    @Test
    void aVersionCodeThatIsNotDigitsOnlyIsRefused() throws Exception {
        // issue 38 defect 2: "+2" and " 2" were deployed as version 2
        CellDeployments cell = cell(DeployedVersions.inMemory());
        for (String lenient : new String[] {"+2", " 2", "2 ", "\uff12"}) {
            byte[] manifest = new String(TestApps.manifest("echo"), StandardCharsets.UTF_8)
                    .replace(" versionCode=\"1\"", " versionCode=\"" + lenient + "\"").getBytes(StandardCharsets.UTF_8);
            DeployRefusal r = refused(ResultCode.BAD_MANIFEST, cell, Bundle.build(manifest, echoJar, board.getPrivate()));
            assertTrue(r.reason().contains("versionCode '" + lenient + "' is not an integer (digits only)"), r.reason());
        }
        assertEquals(0, cell.deployedVersion("echo"));
    }

    @Test
    void versionOfAnApplicationThatFailsToLoadIsNotRecorded() throws Exception {
        CellDeployments cell = cell(DeployedVersions.open(state));
        cell.deploy("echo", echo(1));
        cell.undeploy("echo");
        refused(ResultCode.LOAD_FAILED, cell, Bundle.build(TestApps.versioned("echo", 7), brokenJar, board.getPrivate()));
        assertEquals(1, cell.deployedVersion("echo"));
        assertEquals(1, DeployedVersions.open(state).of("echo"));
    }

    @Test
    void unwritableRecordRefusesTheDeploymentAndKeepsTheOldVersion() throws Exception {
        CellDeployments cell = cell(DeployedVersions.open(state));
        cell.deploy("echo", echo(1));
        cell.undeploy("echo");
        // A directory where the record's temporary file goes: writing fails, even for root.
        Path blocker = Files.createDirectory(state.resolve(DeployedVersions.FILE_NAME + ".tmp"));
        DeployRefusal r = refused(ResultCode.STATE_FAILED, cell, echo(2));
        assertTrue(r.reason().startsWith("echo version 2 not deployed: cannot write the version record "
                + state.resolve("versions")), r.reason());
        assertEquals(1, cell.deployedVersion("echo"));
        assertTrue(cell.applications().isEmpty());
        cell.deploy("echo", echo(1)); // the record does not change: deploys
        cell.undeploy("echo");
        IOException e = assertThrows(IOException.class, () -> DeployedVersions.open(state));
        assertTrue(e.getMessage().startsWith("cannot write the version record "), e.getMessage());
        Files.delete(blocker);
        assertEquals(1, DeployedVersions.open(state).of("echo"));
    }

    @Test
    void corruptRecordIsReportedWithItsLineAndNeverReset() throws Exception {
        Path file = state.resolve(DeployedVersions.FILE_NAME);
        for (String[] c : new String[][] {
                {DeployedVersions.HEADER + "\necho 3\necho three\n", ":3 is corrupt: 'echo three' is not '<application> <versionCode>'"},
                {DeployedVersions.HEADER + "\necho 0\n", ":2 is corrupt"},
                {DeployedVersions.HEADER + "\necho 99999999999\n", ":2 is corrupt"},
                {DeployedVersions.HEADER + "\necho 3\necho 4\n", ":3 is corrupt: application 'echo' is recorded twice"},
                {DeployedVersions.HEADER + "\necho 3", " is corrupt: does not end with a newline"},
                {"", " is corrupt: empty"},
                {"echo 3\n", ":1 is corrupt: the first line is not the header"}}) {
            Files.writeString(file, c[0]);
            IOException e = assertThrows(IOException.class, () -> DeployedVersions.open(state), c[0]);
            assertTrue(e.getMessage().startsWith("the version record " + file + c[1]), e.getMessage());
            assertTrue(e.getMessage().contains("not reset automatically"), e.getMessage());
            assertEquals(c[0], Files.readString(file), "the corrupt record is left for a person to look at");
        }
    }

    @Test
    void agentWithACorruptRecordDoesNotStart() throws Exception {
        Path pub = work.resolve("deploy.pub");
        Files.createDirectories(work);
        Files.writeString(pub, DeployKey.toPem(board.getPublic()));
        Path region = Files.createFile(work.resolve("region"));
        Files.writeString(state.resolve(DeployedVersions.FILE_NAME), "garbage\n");
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        java.io.PrintStream e = new java.io.PrintStream(err, true, StandardCharsets.UTF_8);
        java.io.PrintStream o = new java.io.PrintStream(new java.io.ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        assertEquals(1, Main.run(new String[] {"--region", region.toString(), "--deploy-key", pub.toString(),
                "--cpus", "0", "--budget-bytes", "1M", "--state-dir", state.toString()}, o, e, work));
        String text = err.toString(StandardCharsets.UTF_8);
        assertTrue(text.startsWith("rtcell: --state-dir " + state + ": the version record " + state.resolve("versions")
                + ":1 is corrupt"), text);
    }
}
