package org.rtdroid.android.cell.pm;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * An app's signed APK (docs/android-cell.md, "App packages"): a zip holding the app bundle's
 * {@code AndroidManifest.xml} and {@code classes.jar}, signed with APK Signature Scheme v2 or v3.
 * The cell copies it into its own directory first (what is verified is what is unpacked), checks
 * from the zip's central directory that it holds the two files and nothing else, has {@code
 * apksigner verify} check the signature over the whole copy and takes the one signer's certificate
 * digest; only then does it unpack (inflate) the two files there and read the bundle. The package
 * and versionCode come from that signed manifest.
 */
public final class SignedApk {
    static final long MAX_APK_BYTES = AppBundle.MAX_CLASSES_BYTES + AppBundle.MAX_MANIFEST_BYTES + 1024 * 1024;
    /** apksigner reads the minimum SDK from a binary manifest; this one is plain XML, so it is given. */
    static final String VERIFY_MIN_SDK = "24";
    private static final Pattern DIGEST = Pattern.compile("^Signer #1 certificate SHA-256 digest: ([0-9a-f]{64})$",
            Pattern.MULTILINE);
    private static final Pattern SIGNERS = Pattern.compile("^Number of signers: (\\d+)$", Pattern.MULTILINE);

    /** The verified identity and the unpacked bundle. */
    final AppBundle bundle;
    /** SHA-256 of the signer's certificate (DER), lower-case hex: what Android compares on update. */
    final String certificateSha256;

    private SignedApk(AppBundle bundle, String certificateSha256) {
        this.bundle = bundle;
        this.certificateSha256 = certificateSha256;
    }

    /** Thrown for an APK the cell refuses (a 400 with this message). */
    public static final class BadApkException extends Exception {
        public BadApkException(String message) {
            super(message);
        }
    }

    /**
     * Copies {@code apk} into {@code work} (which it empties), verifies it and unpacks it there.
     */
    public static SignedApk open(Path apk, Path work) throws BadApkException, IOException {
        if (!Files.exists(apk)) {
            throw new BadApkException("APK " + apk + " does not exist");
        }
        if (Files.isDirectory(apk)) {
            throw new BadApkException(apk + " is a folder (an unsigned app bundle): the cell installs apps from "
                    + "signed APKs only; pack and sign it with android-cell/apk/cell-apk.sh " + apk + " OUT.apk");
        }
        long size = Files.size(apk);
        if (size > MAX_APK_BYTES) {
            throw new BadApkException("APK " + apk + " is " + size + " bytes, over " + MAX_APK_BYTES);
        }
        deleteTree(work);
        Files.createDirectories(work);
        Path copy = work.resolve("app.apk");
        Files.copy(apk, copy, StandardCopyOption.REPLACE_EXISTING);
        // The zip's shape from its central directory (apksigner needs the manifest to be there),
        // then the signature, and only then anything inflated: its v2/v3 digests cover every byte
        // of the entries, so a changed byte is refused as such wherever it falls, not as whatever
        // the inflater makes of it.
        checkShape(apk, copy);
        String cert = verify(apk, copy);
        Path dir = Files.createDirectories(work.resolve("bundle"));
        unpack(apk, copy, dir);
        try {
            return new SignedApk(AppBundle.read(dir), cert);
        } catch (AppBundle.BadBundleException e) {
            throw new BadApkException("malformed APK " + apk + ": " + e.getMessage());
        }
    }

    private static String verify(Path apk, Path copy) throws BadApkException, IOException {
        Process p;
        try {
            p = new ProcessBuilder("apksigner", "verify", "--min-sdk-version", VERIFY_MIN_SDK, "--print-certs", "-v",
                    copy.toString()).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IOException("cannot run apksigner to verify " + apk + " (apt-get install apksigner): "
                    + e.getMessage(), e);
        }
        String out;
        try (InputStream in = p.getInputStream()) {
            out = new String(in.readNBytes(64 * 1024), StandardCharsets.UTF_8);
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("apksigner did not answer in 120 s for " + apk);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted verifying " + apk, e);
        }
        if (p.exitValue() != 0 || !out.startsWith("Verifies")) {
            throw new BadApkException("APK " + apk + " is not signed or does not verify (apksigner: "
                    + problems(out) + ")");
        }
        Matcher signers = SIGNERS.matcher(out);
        String count = signers.find() ? signers.group(1) : "no";
        if (!count.equals("1")) {
            throw new BadApkException("APK " + apk + " has " + count
                    + " signers; the cell takes an app's identity from exactly one");
        }
        Matcher digest = DIGEST.matcher(out);
        if (!digest.find()) {
            throw new BadApkException("APK " + apk + ": apksigner printed no certificate digest");
        }
        return digest.group(1).toLowerCase(Locale.ROOT);
    }

    /** apksigner's error lines, one line. */
    private static String problems(String out) {
        List<String> errors = new ArrayList<>();
        for (String line : out.split("\n")) {
            String l = line.strip();
            if (l.startsWith("ERROR") || l.startsWith("DOES NOT VERIFY")) {
                errors.add(l);
            }
        }
        String s = errors.isEmpty() ? out.strip() : String.join("; ", errors);
        return s.length() > 400 ? s.substring(0, 400) + "..." : s;
    }

    /** The entries' names, from the central directory (nothing inflated): the two files, nothing else. */
    private static void checkShape(Path apk, Path copy) throws BadApkException, IOException {
        boolean manifest = false;
        boolean classes = false;
        try (ZipFile zip = new ZipFile(copy.toFile())) {
            for (ZipEntry e : java.util.Collections.list(zip.entries())) {
                maxBytes(apk, e.getName());
                manifest |= e.getName().equals(AppBundle.MANIFEST);
                classes |= e.getName().equals(AppBundle.CLASSES);
            }
        } catch (java.util.zip.ZipException e) {
            throw new BadApkException("APK " + apk + " is not a valid zip: " + e.getMessage());
        }
        if (!manifest) {
            throw new BadApkException("APK " + apk + " has no " + AppBundle.MANIFEST);
        }
        if (!classes) {
            throw new BadApkException("APK " + apk + " has no " + AppBundle.CLASSES);
        }
    }

    /** How large entry {@code name} may be unpacked; any entry but the two files is refused. */
    private static long maxBytes(Path apk, String name) throws BadApkException {
        if (name.equals(AppBundle.MANIFEST)) {
            return AppBundle.MAX_MANIFEST_BYTES;
        } else if (name.equals(AppBundle.CLASSES)) {
            return AppBundle.MAX_CLASSES_BYTES;
        }
        throw new BadApkException("APK " + apk + " carries '" + name + "': an APK for this cell holds "
                + AppBundle.MANIFEST + " and " + AppBundle.CLASSES + " only (resources and dex go into "
                + "the device's APK)");
    }

    private static void unpack(Path apk, Path copy, Path dir) throws BadApkException, IOException {
        try (ZipFile zip = new ZipFile(copy.toFile())) {
            for (ZipEntry e : java.util.Collections.list(zip.entries())) {
                String name = e.getName();
                long max = maxBytes(apk, name);
                try (InputStream in = zip.getInputStream(e); OutputStream out = Files.newOutputStream(dir.resolve(name))) {
                    // bounded by what is read, not by what the zip header claims
                    in.transferTo(new BoundedOutput(out, max));
                } catch (TooBig big) {
                    throw new BadApkException("APK " + apk + ": " + name + " is over " + max + " bytes");
                }
            }
        } catch (java.util.zip.ZipException e) {
            throw new BadApkException("APK " + apk + " is not a valid zip: " + e.getMessage());
        }
    }

    private static final class TooBig extends IOException {
    }

    private static final class BoundedOutput extends OutputStream {
        private final OutputStream out;
        private final long max;
        private long written;

        BoundedOutput(OutputStream out, long max) {
            this.out = out;
            this.max = max;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            written += len;
            if (written > max) {
                throw new TooBig();
            }
            out.write(b, off, len);
        }
    }

    public static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (var s = Files.walk(p)) {
            for (Path q : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(q);
            }
        }
    }
}
