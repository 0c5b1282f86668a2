package org.rtdroid.rtcell.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The shared bundle vectors ({@code bridge/vectors/bundles/index.txt}, written by the Python side):
 * the agent computes the same signed message for an ordinary and a downgrade bundle, signs alike
 * (Ed25519 is deterministic), accepts what the vectors accept and refuses a signature under the
 * other entry's name.
 */
class BundleVectorsTest {
    static final Path VECTORS = Path.of("..", "..", "bridge", "vectors", "bundles", "index.txt");
    static final HexFormat HEX = HexFormat.of();
    // DER prefixes of an Ed25519 key in PKCS#8 and in SubjectPublicKeyInfo (RFC 8410)
    static final String PKCS8_PREFIX = "302e020100300506032b657004220420";
    static final String SPKI_PREFIX = "302a300506032b6570032100";

    @Test
    void agentSignsAndVerifiesAsTheSharedVectorsSay() throws Exception {
        List<String[]> lines = Files.readAllLines(VECTORS).stream()
                .filter(l -> !l.isEmpty() && !l.startsWith("#")).map(l -> l.split(" ")).toList();
        String[] key = lines.stream().filter(l -> l[0].equals("key")).findFirst().orElseThrow();
        KeyFactory ed = KeyFactory.getInstance("Ed25519");
        PrivateKey priv = ed.generatePrivate(new PKCS8EncodedKeySpec(HEX.parseHex(PKCS8_PREFIX + key[1])));
        PublicKey pub = ed.generatePublic(new X509EncodedKeySpec(HEX.parseHex(SPKI_PREFIX + key[2])));
        int bundles = 0;
        for (String[] v : lines) {
            if (!v[0].equals("bundle")) {
                continue;
            }
            bundles++;
            String name = v[1];
            String entry = v[2];
            byte[] manifest = HEX.parseHex(v[3]);
            byte[] jar = HEX.parseHex(v[4]);
            byte[] message = HEX.parseHex(v[5]);
            byte[] signature = HEX.parseHex(v[6]);
            boolean downgrade = entry.equals(Bundle.DOWNGRADE_SIGNATURE_ENTRY);
            assertArrayEquals(message, Bundle.signedMessage(downgrade ? Bundle.DOWNGRADE_PREFIX : Bundle.SIGNED_PREFIX,
                    manifest, jar), name);
            Map<String, byte[]> entries = new LinkedHashMap<>();
            entries.put(Bundle.MANIFEST_ENTRY, manifest);
            entries.put(Bundle.JAR_ENTRY, jar);
            entries.put(entry, signature);
            if (v[7].equals("ok")) {
                assertArrayEquals(signature, downgrade ? Bundle.signDowngrade(manifest, jar, priv)
                        : Bundle.sign(manifest, jar, priv), name);
                assertEquals(downgrade, Bundle.verify(Bundle.zip(entries), pub).downgradeAllowed(), name);
            } else {
                assertEquals("bad_signature", v[7], name);
                DeployRefusal r = assertThrows(DeployRefusal.class, () -> Bundle.verify(Bundle.zip(entries), pub));
                assertEquals(ResultCode.BAD_SIGNATURE, r.code(), name + ": " + r.reason());
            }
        }
        assertTrue(bundles >= 4, "vectors read: " + bundles);
    }

    /** Issue 38 defect 4: the agent reads a bundle's zip by the host's rule, crafted disagreements refused alike. */
    @Test
    void agentReadsEveryZipAsTheSharedVectorsSay() throws Exception {
        List<String[]> lines = lines();
        String[] key = lines.stream().filter(l -> l[0].equals("key")).findFirst().orElseThrow();
        PublicKey pub = KeyFactory.getInstance("Ed25519").generatePublic(
                new X509EncodedKeySpec(HEX.parseHex(SPKI_PREFIX + key[2])));
        int zips = 0;
        for (String[] v : lines) {
            if (!v[0].equals("zip")) {
                continue;
            }
            zips++;
            byte[] zip = HEX.parseHex(v[3]);
            if (v[2].equals("ok")) {
                assertEquals(false, Bundle.verify(zip, pub).downgradeAllowed(), v[1]);
            } else {
                assertEquals("bad_bundle", v[2], v[1]);
                DeployRefusal r = assertThrows(DeployRefusal.class, () -> Bundle.verify(zip, pub), v[1]);
                assertEquals(ResultCode.name(ResultCode.BAD_BUNDLE), ResultCode.name(r.code()), v[1] + ": " + r.reason());
                assertTrue(!r.reason().contains("\n"), r.reason());
            }
        }
        assertTrue(zips >= 10, "zip vectors read: " + zips);
        DeployRefusal renamed = assertThrows(DeployRefusal.class, () -> Bundle.verify(zip(lines, "local_name_differs"), pub));
        assertTrue(renamed.reason().contains("its local header names 'manifest.xmk'; the central directory and the local"
                + " header must agree"), renamed.reason());
    }

    /** Outside text is escaped by the rule the host's xcc.printable follows. */
    @Test
    void outsideTextIsEscapedAsTheSharedVectorsSay() throws Exception {
        int n = 0;
        for (String[] v : lines()) {
            if (v[0].equals("printable")) {
                n++;
                String text = v[1].equals("-") ? "" : utf16(HEX.parseHex(v[1]));
                String escaped = v[2].equals("-") ? "" : new String(HEX.parseHex(v[2]), java.nio.charset.StandardCharsets.UTF_8);
                assertEquals(escaped, org.rtdroid.runtime.text.Printable.escape(text), v[1]);
            }
        }
        assertTrue(n >= 5, "printable vectors read: " + n);
    }

    /** UTF-16BE code units as they are, lone surrogates included (a decoder would replace those). */
    private static String utf16(byte[] b) {
        char[] c = new char[b.length / 2];
        for (int i = 0; i < c.length; i++) {
            c[i] = (char) (((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff));
        }
        return new String(c);
    }

    private static byte[] zip(List<String[]> lines, String name) {
        return HEX.parseHex(lines.stream().filter(l -> l[0].equals("zip") && l[1].equals(name)).findFirst().orElseThrow()[3]);
    }

    private static List<String[]> lines() throws java.io.IOException {
        return Files.readAllLines(VECTORS).stream().filter(l -> !l.isEmpty() && !l.startsWith("#")).map(l -> l.split(" "))
                .toList();
    }
}
