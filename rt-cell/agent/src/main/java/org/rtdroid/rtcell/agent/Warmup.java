package org.rtdroid.rtcell.agent;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.Map;
import org.rtdroid.runtime.manifest.ManifestException;
import org.rtdroid.runtime.manifest.ManifestParser;

/**
 * Runs the deploy path's checks once at start-up, on a bundle the agent signs itself with a
 * throw-away key: unzip, Ed25519 verification and manifest parsing (JAXP), so that their classes
 * are loaded and linked before the first real deployment. Under QEMU TCG that code costs
 * seconds the first time; on the snapshot-restored board it is then part of the snapshot. Nothing
 * is deployed, and the board's deploy key is not involved.
 */
final class Warmup {
    private static final String MANIFEST = """
            <?xml version="1.0" encoding="UTF-8"?>
            <manifest versionCode="1">
              <application name="warmup">
                <receiver name="warmup.Receiver" priority="40">
                  <memSizes total="8K" persistent="4K" release="4K"/>
                  <intent-filter role="subscriber" count="1"><action name="warmup"/></intent-filter>
                </receiver>
                <channel name="warmup" type="cross-context" direction="in" capacity="2">
                  <data size="8B"/><allow sender="*"/>
                </channel>
              </application>
            </manifest>
            """;

    private Warmup() {
    }

    /** @return a line for the console: what was exercised and how long it took */
    static String deployPath() {
        long t0 = System.nanoTime();
        try {
            KeyPair throwaway = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
            byte[] manifest = MANIFEST.getBytes(StandardCharsets.UTF_8);
            byte[] jar = Bundle.zip(Map.of("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n".getBytes(StandardCharsets.US_ASCII)));
            Bundle bundle = Bundle.verify(Bundle.build(manifest, jar, throwaway.getPrivate()), throwaway.getPublic());
            ManifestParser.parse("warmup/" + Bundle.MANIFEST_ENTRY, new ByteArrayInputStream(bundle.manifestXml()));
        } catch (GeneralSecurityException | DeployRefusal | ManifestException | RuntimeException e) {
            // Only a warm-up: a real deployment reports its own errors.
            return "rtcell: deploy path warm-up skipped: " + e;
        }
        return String.format("rtcell: deploy path warmed up (bundle, Ed25519, manifest) in %.0f ms",
                (System.nanoTime() - t0) / 1e6);
    }
}
