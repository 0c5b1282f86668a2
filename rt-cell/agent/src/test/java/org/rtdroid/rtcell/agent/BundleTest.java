package org.rtdroid.rtcell.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class BundleTest {
    static KeyPair board;
    static KeyPair other;
    static final byte[] MANIFEST = "<manifest/>".getBytes(StandardCharsets.UTF_8);
    static final byte[] JAR = new byte[] {'P', 'K', 3, 4, 1, 2, 3};

    @BeforeAll
    static void keys() throws Exception {
        board = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        other = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    }

    @Test
    void signedBundleVerifies() throws Exception {
        Bundle b = Bundle.verify(Bundle.build(MANIFEST, JAR, board.getPrivate()), board.getPublic());
        assertArrayEquals(MANIFEST, b.manifestXml());
        assertArrayEquals(JAR, b.appJar());
    }

    @Test
    void pemRoundTripKeepsTheKeyUsable() throws Exception {
        var pub = DeployKey.publicFromPem(DeployKey.toPem(board.getPublic()), "deploy.pub");
        var priv = DeployKey.privateFromPem(DeployKey.toPem(board.getPrivate()), "deploy.key");
        Bundle.verify(Bundle.build(MANIFEST, JAR, priv), pub);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DeployKey.publicFromPem("hello", "x.pem"));
        assertTrue(e.getMessage().contains("x.pem"));
    }

    @Test
    void unsignedIsBadSignature() {
        Map<String, byte[]> e = new LinkedHashMap<>();
        e.put("manifest.xml", MANIFEST);
        e.put("app.jar", JAR);
        assertRefused(ResultCode.BAD_SIGNATURE, "unsigned", Bundle.zip(e));
    }

    @Test
    void tamperedManifestIsBadSignature() {
        Map<String, byte[]> e = entries(board);
        e.put("manifest.xml", "<manifest evil='1'/>".getBytes(StandardCharsets.UTF_8));
        assertRefused(ResultCode.BAD_SIGNATURE, "does not verify", Bundle.zip(e));
    }

    @Test
    void tamperedJarIsBadSignature() {
        Map<String, byte[]> e = entries(board);
        e.put("app.jar", new byte[] {'P', 'K', 3, 4, 1, 2, 4});
        assertRefused(ResultCode.BAD_SIGNATURE, "does not verify", Bundle.zip(e));
    }

    @Test
    void wrongKeyIsBadSignature() {
        assertRefused(ResultCode.BAD_SIGNATURE, "does not verify", Bundle.zip(entries(other)));
    }

    @Test
    void shortSignatureIsBadSignature() {
        Map<String, byte[]> e = entries(board);
        e.put("signature.ed25519", new byte[63]);
        assertRefused(ResultCode.BAD_SIGNATURE, "exactly 64", Bundle.zip(e));
    }

    @Test
    void extraEntryIsBadBundle() {
        Map<String, byte[]> e = entries(board);
        e.put("extra.txt", new byte[1]);
        assertRefused(ResultCode.BAD_BUNDLE, "extra.txt", Bundle.zip(e));
    }

    @Test
    void unexpectedNameIsBadBundle() {
        Map<String, byte[]> e = new LinkedHashMap<>();
        e.put("manifest.xml", MANIFEST);
        e.put("classes.jar", JAR);
        assertRefused(ResultCode.BAD_BUNDLE, "classes.jar", Bundle.zip(e));
    }

    @Test
    void missingJarIsBadBundle() {
        Map<String, byte[]> e = entries(board);
        e.remove("app.jar");
        assertRefused(ResultCode.BAD_BUNDLE, "lacks app.jar", Bundle.zip(e));
    }

    @Test
    void garbageIsBadBundle() {
        assertRefused(ResultCode.BAD_BUNDLE, "zip", "this is not a zip at all".getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void oversizeManifestIsBadBundle() {
        Map<String, byte[]> e = entries(board);
        e.put("manifest.xml", new byte[Bundle.MAX_MANIFEST_BYTES + 1]);
        assertRefused(ResultCode.BAD_BUNDLE, "exceeds", Bundle.zip(e));
    }

    static Map<String, byte[]> entries(KeyPair signer) {
        Map<String, byte[]> e = new LinkedHashMap<>();
        e.put("manifest.xml", MANIFEST);
        e.put("app.jar", JAR);
        e.put("signature.ed25519", Bundle.sign(MANIFEST, JAR, signer.getPrivate()));
        return e;
    }

    private void assertRefused(int code, String reasonPart, byte[] bundle) {
        DeployRefusal r = assertThrows(DeployRefusal.class, () -> Bundle.verify(bundle, board.getPublic()));
        assertEquals(ResultCode.name(code), ResultCode.name(r.code()), r.reason());
        assertTrue(r.reason().contains(reasonPart), r.reason());
    }
}
