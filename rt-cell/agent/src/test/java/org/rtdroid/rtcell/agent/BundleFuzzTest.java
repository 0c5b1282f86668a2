package org.rtdroid.rtcell.agent;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayInputStream;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.rtdroid.runtime.manifest.ManifestException;
import org.rtdroid.runtime.manifest.ManifestParser;

/**
 * The bundle reader over any bytes a deployer could send (fuzz/README.md): a bundle verifies or
 * is refused with a {@link DeployRefusal} carrying its code and reason; any other exception is a
 * finding. Half the inputs are raw bytes; the other half are zips built from the input (entry
 * names from the bundle's vocabulary and beyond, contents, and a signature that is right, wrong
 * or absent), since random bytes rarely make a zip the JDK reads. A bundle that verifies has
 * its manifest parsed, as the agent does next. Replays fuzz/corpus/bundle under `mvn test`.
 */
class BundleFuzzTest {
    private static final KeyPair KEY = ed25519();
    private static final String[] NAMES = {Bundle.MANIFEST_ENTRY, Bundle.JAR_ENTRY, Bundle.SIGNATURE_ENTRY,
        "extra.txt", "dir/", Bundle.MANIFEST_ENTRY};

    @FuzzTest(maxDuration = "10s")
    void verify(FuzzedDataProvider in) {
        byte[] bytes = in.consumeBoolean() ? in.consumeRemainingAsBytes() : zipFrom(in);
        Bundle bundle;
        try {
            bundle = Bundle.verify(bytes, KEY.getPublic());
        } catch (DeployRefusal refused) {
            assertNotNull(refused.reason());
            return;
        }
        try {
            ManifestParser.parse("manifest.xml", new ByteArrayInputStream(bundle.manifestXml()));
        } catch (ManifestException refused) {
            // the agent answers BAD_MANIFEST with this message
        }
    }

    private static byte[] zipFrom(FuzzedDataProvider in) {
        Map<String, byte[]> entries = new LinkedHashMap<>();
        int count = in.consumeInt(0, 4);
        for (int i = 0; i < count; i++) {
            String name = in.consumeBoolean() ? in.pickValue(NAMES) : in.consumeString(16);
            entries.put(name, in.consumeBytes(in.consumeInt(0, 512)));
        }
        byte[] manifest = entries.getOrDefault(Bundle.MANIFEST_ENTRY, new byte[0]);
        byte[] jar = entries.getOrDefault(Bundle.JAR_ENTRY, new byte[0]);
        switch (in.consumeInt(0, 2)) {
            case 0: entries.put(Bundle.SIGNATURE_ENTRY, Bundle.sign(manifest, jar, KEY.getPrivate())); break;
            case 1: entries.remove(Bundle.SIGNATURE_ENTRY); break;
            default: break; // whatever the input put there
        }
        try {
            return Bundle.zip(entries);
        } catch (IllegalStateException e) {
            return in.consumeRemainingAsBytes(); // a name ZipOutputStream refuses: raw bytes then
        }
    }

    private static KeyPair ed25519() {
        try {
            return KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
