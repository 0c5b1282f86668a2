package org.rtdroid.runtime.manifest;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayInputStream;

/**
 * The manifest parser over any bytes a bundle could carry (fuzz/README.md): a manifest is parsed
 * or refused with a {@link ManifestException} that names what is wrong; any other exception is a
 * finding. Replays the example manifests and fuzz/corpus/manifest under `mvn test`.
 */
class ManifestParserFuzzTest {
    @FuzzTest(maxDuration = "10s")
    void parse(byte[] data) {
        try {
            ManifestParser.parse("fuzz.xml", new ByteArrayInputStream(data));
        } catch (ManifestException refused) {
            // the expected answer to a malformed manifest
        }
    }
}
