package org.rtdroid.rtcell.agent;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.rtdroid.runtime.text.Printable;

/**
 * An RT bundle ({@code *.rtb}, protocols.md "RT bundle"): a zip with exactly {@code manifest.xml},
 * {@code app.jar} and one signature entry. An ordinary bundle's {@code signature.ed25519} covers
 * {@code "RTDROID-BUNDLE-V1\n" || SHA-256(manifest.xml) || SHA-256(app.jar)}; a bundle signed to be
 * deployed over a newer version carries {@code downgrade.ed25519} instead, over
 * {@code "RTDROID-DOWNGRADE-V1\n" || ...}. The distinct prefix is what keeps an ordinary bundle
 * from being replayed as a downgrade: renaming its signature entry makes it fail verification.
 *
 * <p>Everything here treats the bundle as hostile: the zip is read by one rule, the host's too
 * ({@link BundleZip}), sizes are bounded while reading (the zip's own size fields are not
 * trusted), entries are checked by name and count, and nothing from the bundle is used before the
 * signature has verified.
 */
public final class Bundle {
    public static final String MANIFEST_ENTRY = "manifest.xml";
    public static final String JAR_ENTRY = "app.jar";
    public static final String SIGNATURE_ENTRY = "signature.ed25519";
    public static final String DOWNGRADE_SIGNATURE_ENTRY = "downgrade.ed25519";
    public static final int MAX_MANIFEST_BYTES = 64 * 1024;
    public static final int MAX_JAR_BYTES = 8 * 1024 * 1024;
    public static final int SIGNATURE_BYTES = 64;
    static final byte[] SIGNED_PREFIX = "RTDROID-BUNDLE-V1\n".getBytes(StandardCharsets.US_ASCII);
    static final byte[] DOWNGRADE_PREFIX = "RTDROID-DOWNGRADE-V1\n".getBytes(StandardCharsets.US_ASCII);
    static final String ALLOWED = "allowed exactly " + MANIFEST_ENTRY + ", " + JAR_ENTRY + " and "
            + SIGNATURE_ENTRY + " (or " + DOWNGRADE_SIGNATURE_ENTRY + ")";

    private final byte[] manifestXml;
    private final byte[] appJar;
    private final boolean downgradeAllowed;

    private Bundle(byte[] manifestXml, byte[] appJar, boolean downgradeAllowed) {
        this.manifestXml = manifestXml;
        this.appJar = appJar;
        this.downgradeAllowed = downgradeAllowed;
    }

    /** True when the bundle was signed (over the downgrade prefix) to replace a newer version. */
    public boolean downgradeAllowed() {
        return downgradeAllowed;
    }

    /** The verified manifest bytes. */
    public byte[] manifestXml() {
        return manifestXml;
    }

    /** The verified application jar bytes. */
    public byte[] appJar() {
        return appJar;
    }

    /** The message an ordinary bundle's Ed25519 signature covers. */
    public static byte[] signedMessage(byte[] manifestXml, byte[] appJar) {
        return signedMessage(SIGNED_PREFIX, manifestXml, appJar);
    }

    /** The message a bundle's signature covers: {@code prefix || SHA-256(manifest) || SHA-256(jar)}. */
    static byte[] signedMessage(byte[] prefix, byte[] manifestXml, byte[] appJar) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            byte[] m = sha.digest(manifestXml);
            byte[] j = sha.digest(appJar);
            byte[] out = new byte[prefix.length + 64];
            System.arraycopy(prefix, 0, out, 0, prefix.length);
            System.arraycopy(m, 0, out, prefix.length, 32);
            System.arraycopy(j, 0, out, prefix.length + 32, 32);
            return out;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 missing from the JDK", e);
        }
    }

    public static byte[] sign(byte[] manifestXml, byte[] appJar, PrivateKey key) {
        return sign(SIGNED_PREFIX, manifestXml, appJar, key);
    }

    /** The signature of a bundle that may replace a newer version ({@link #DOWNGRADE_SIGNATURE_ENTRY}). */
    public static byte[] signDowngrade(byte[] manifestXml, byte[] appJar, PrivateKey key) {
        return sign(DOWNGRADE_PREFIX, manifestXml, appJar, key);
    }

    private static byte[] sign(byte[] prefix, byte[] manifestXml, byte[] appJar, PrivateKey key) {
        try {
            Signature s = Signature.getInstance("Ed25519");
            s.initSign(key);
            s.update(signedMessage(prefix, manifestXml, appJar));
            return s.sign();
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot sign with this key: " + e.getMessage(), e);
        }
    }

    /** Builds a bundle zip from arbitrary entries, in the given order (tests and tools). */
    public static byte[] zip(Map<String, byte[]> entries) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
            for (Map.Entry<String, byte[]> e : entries.entrySet()) {
                zip.putNextEntry(new ZipEntry(e.getKey()));
                zip.write(e.getValue());
                zip.closeEntry();
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return bytes.toByteArray();
    }

    /** Builds and signs a well-formed bundle. */
    public static byte[] build(byte[] manifestXml, byte[] appJar, PrivateKey key) {
        return zip(entries(manifestXml, appJar, SIGNATURE_ENTRY, sign(manifestXml, appJar, key)));
    }

    /** Builds a bundle signed to replace a newer version of its application. */
    public static byte[] buildDowngrade(byte[] manifestXml, byte[] appJar, PrivateKey key) {
        return zip(entries(manifestXml, appJar, DOWNGRADE_SIGNATURE_ENTRY, signDowngrade(manifestXml, appJar, key)));
    }

    private static Map<String, byte[]> entries(byte[] manifestXml, byte[] appJar, String signatureEntry, byte[] sig) {
        Map<String, byte[]> entries = new java.util.LinkedHashMap<>();
        entries.put(MANIFEST_ENTRY, manifestXml);
        entries.put(JAR_ENTRY, appJar);
        entries.put(signatureEntry, sig);
        return entries;
    }

    /**
     * Opens and verifies a bundle: its zip read by the one reading rule ({@link BundleZip}), its
     * entries by name and bound, its signature.
     *
     * @throws DeployRefusal BAD_BUNDLE (malformed zip, central directory and local headers that
     *     disagree, wrong entries, entry too large) or BAD_SIGNATURE (no signature entry, wrong
     *     length, signature does not verify over the prefix its entry name stands for)
     */
    public static Bundle verify(byte[] bundleBytes, PublicKey deployKey) throws DeployRefusal {
        Map<String, byte[]> entries = new HashMap<>();
        int count = 0;
        for (BundleZip.Entry e : BundleZip.entries(bundleBytes)) {
            count++;
            String name = e.name();
            if (count > 3) {
                throw new DeployRefusal(ResultCode.BAD_BUNDLE,
                        "bundle has more than 3 entries (extra entry " + Printable.quote(clip(name)) + "); " + ALLOWED);
            }
            if (name.endsWith("/")) {
                throw new DeployRefusal(ResultCode.BAD_BUNDLE, "bundle entry " + Printable.quote(clip(name)) + " is a directory");
            }
            int limit;
            switch (name) {
                case MANIFEST_ENTRY: limit = MAX_MANIFEST_BYTES; break;
                case JAR_ENTRY: limit = MAX_JAR_BYTES; break;
                case SIGNATURE_ENTRY, DOWNGRADE_SIGNATURE_ENTRY: limit = SIGNATURE_BYTES; break;
                default:
                    throw new DeployRefusal(ResultCode.BAD_BUNDLE, "bundle has unexpected entry " + Printable.quote(clip(name))
                            + "; " + ALLOWED);
            }
            if (entries.containsKey(name)) {
                throw new DeployRefusal(ResultCode.BAD_BUNDLE, "bundle has entry '" + name + "' twice");
            }
            entries.put(name, BundleZip.content(bundleBytes, e, limit));
        }
        byte[] manifest = entries.get(MANIFEST_ENTRY);
        byte[] jar = entries.get(JAR_ENTRY);
        if (manifest == null || jar == null) {
            throw new DeployRefusal(ResultCode.BAD_BUNDLE, "bundle lacks " + (manifest == null ? MANIFEST_ENTRY : JAR_ENTRY));
        }
        // Both signature entries with the manifest and the jar are four entries: refused above.
        boolean downgrade = entries.containsKey(DOWNGRADE_SIGNATURE_ENTRY);
        String sigEntry = downgrade ? DOWNGRADE_SIGNATURE_ENTRY : SIGNATURE_ENTRY;
        byte[] sig = entries.get(sigEntry);
        if (sig == null) {
            throw new DeployRefusal(ResultCode.BAD_SIGNATURE, "bundle is unsigned: no " + SIGNATURE_ENTRY + " entry");
        }
        if (sig.length != SIGNATURE_BYTES) {
            throw new DeployRefusal(ResultCode.BAD_SIGNATURE,
                    sigEntry + " is " + sig.length + " bytes; an Ed25519 signature is exactly 64");
        }
        boolean ok;
        try {
            Signature s = Signature.getInstance("Ed25519");
            s.initVerify(deployKey);
            s.update(signedMessage(downgrade ? DOWNGRADE_PREFIX : SIGNED_PREFIX, manifest, jar));
            ok = s.verify(sig);
        } catch (GeneralSecurityException e) {
            ok = false;
        }
        if (!ok) {
            throw new DeployRefusal(ResultCode.BAD_SIGNATURE, downgrade
                    ? DOWNGRADE_SIGNATURE_ENTRY + " does not verify as a downgrade signature with the board's deploy key"
                            + " (an ordinary signature relabelled, tampered with, or another key)"
                    : "Ed25519 signature does not verify with the board's deploy key (bundle tampered with, or signed with another key)");
        }
        return new Bundle(manifest, jar, downgrade);
    }

    static String clip(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "..." : s;
    }
}
