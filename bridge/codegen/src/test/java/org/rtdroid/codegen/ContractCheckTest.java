package org.rtdroid.codegen;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The build's manifest check names the manifest, the channel and what differs, and accepts what agrees. */
class ContractCheckTest {
    private static final Map<String, ContractCheck.ContractChannel> CONTRACTS = Map.of(
            "app.in", new ContractCheck.ContractChannel("app.in", "to-rt", 22, "app.proto (SetConfig)"),
            "app.out", new ContractCheck.ContractChannel("app.out", "to-android", 65, "app.proto (Status)"));

    private static Path write(Path dir, String name, String xml) throws Exception {
        return Files.writeString(dir.resolve(name), xml);
    }

    @Test
    void rtManifestChannelsAreHeldToTheContracts(@TempDir Path dir) throws Exception {
        Path good = write(dir, "good.xml", "<manifest><application name=\"app\">"
                + "<channel name=\"app.in\" type=\"cross-context\" direction=\"in\"><data size=\"22B\"/></channel>"
                + "<channel name=\"app.out\" type=\"cross-context\" direction=\"out\"><data size=\"65B\"/></channel>"
                + "<channel name=\"app.internal\" type=\"rt-msg\"><data size=\"8B\"/></channel>"
                + "</application></manifest>");
        assertEquals(List.of(), ContractCheck.check(good, CONTRACTS));
        Path bad = write(dir, "bad.xml", "<manifest><application name=\"app\">"
                + "<channel name=\"app.in\" type=\"cross-context\" direction=\"both\"><data size=\"8B\"/></channel>"
                + "<channel name=\"app.other\" type=\"cross-context\" direction=\"out\"><data size=\"8B\"/></channel>"
                + "</application></manifest>");
        assertEquals(List.of(
                bad + ": channel 'app.in' has direction=\"both\", its contract app.proto (SetConfig) says \"in\"",
                bad + ": channel 'app.in' declares <data size=\"8B\"/>, its contract app.proto (SetConfig) encodes up to 22 B: declare size=\"22B\"",
                bad + ": cross-context channel 'app.other' is in no app contract (bridge/contracts/*.proto)"),
                ContractCheck.check(bad, CONTRACTS));
    }

    @Test
    void androidManifestChannelsMustBeContractChannels(@TempDir Path dir) throws Exception {
        String head = "<manifest xmlns:android=\"http://schemas.android.com/apk/res/android\" package=\"org.example\">"
                + "<application><meta-data android:name=\"org.rtdroid.channels\" android:value=\"";
        Path good = write(dir, "AndroidManifest.xml", head + "app.in,app.out\"/></application></manifest>");
        assertEquals(List.of(), ContractCheck.check(good, CONTRACTS));
        Path bad = write(dir, "Bad.xml", head + "app.in, app.typo\"/></application></manifest>");
        assertEquals(List.of(bad + ": org.rtdroid.channels names channel 'app.typo', which is in no app contract"
                + " (bridge/contracts/*.proto)"), ContractCheck.check(bad, CONTRACTS));
        Path broken = write(dir, "broken.xml", "<manifest>");
        assertEquals(1, ContractCheck.check(broken, CONTRACTS).size());
    }

    @Test
    void sizesAreReadByTheManifestsOneRule() {
        assertEquals(65, ContractCheck.sizeBytes("65B"));
        assertEquals(2048, ContractCheck.sizeBytes("2KiB"));
        for (String lenient : new String[] {"+65B", " 65B", "65 B", "65b", "65"}) {
            assertEquals(-1, ContractCheck.sizeBytes(lenient), lenient);
        }
    }
}
