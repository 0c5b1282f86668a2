package org.rtdroid.android.cell;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Builds app bundles for the tests out of compiled class directories, and signed APKs of them
 * (apksigner, as android-cell/apk/cell-apk.sh, but packing whatever the folder holds, so that
 * malformed bundles can be signed too).
 */
final class Bundles {
    private Bundles() {
    }

    static Path repo() {
        return Paths.get(System.getProperty("cell.repo", "../..")).toAbsolutePath().normalize();
    }

    /** The platform key (build/keys, made by apk/platform-key.sh during the build). */
    static Path platformKeystore() {
        return repo().resolve("build/keys/android-debug.keystore");
    }

    /** A key of someone else: a new keystore with alias rtdroid-debug, password "android". */
    static Path otherKeystore(Path dir) throws IOException, InterruptedException {
        Path ks = dir.resolve("other.keystore");
        if (!Files.exists(ks)) {
            run("keytool", "-genkeypair", "-keystore", ks.toString(), "-storetype", "PKCS12", "-alias",
                    "rtdroid-debug", "-keyalg", "RSA", "-keysize", "2048", "-validity", "100", "-storepass", "android",
                    "-keypass", "android", "-dname", "CN=Not the platform");
        }
        return ks;
    }

    /** Zips every file of {@code bundleDir} (unsigned). */
    static Path zip(Path bundleDir, Path zip) throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.walk(bundleDir)) {
            files = s.filter(Files::isRegularFile).sorted().collect(Collectors.toList());
        }
        try (OutputStream out = Files.newOutputStream(zip); ZipOutputStream z = new ZipOutputStream(out)) {
            for (Path f : files) {
                z.putNextEntry(new ZipEntry(bundleDir.relativize(f).toString().replace('\\', '/')));
                z.write(Files.readAllBytes(f));
                z.closeEntry();
            }
        }
        return zip;
    }

    /** {@code bundleDir} packed and signed (APK Signature Scheme v2 + v3) with {@code keystore}. */
    static Path apk(Path bundleDir, Path keystore) throws IOException, InterruptedException {
        Path unsigned = zip(bundleDir, bundleDir.resolveSibling(bundleDir.getFileName() + "-unsigned.zip"));
        Path apk = bundleDir.resolveSibling(bundleDir.getFileName() + ".apk");
        run("apksigner", "sign", "--ks", keystore.toString(), "--ks-pass", "pass:android", "--key-pass",
                "pass:android", "--ks-key-alias", "rtdroid-debug", "--min-sdk-version", "24",
                "--v1-signing-enabled", "false", "--out", apk.toString(), unsigned.toString());
        return apk;
    }

    static Path apk(Path bundleDir) throws IOException, InterruptedException {
        return apk(bundleDir, platformKeystore());
    }

    private static void run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + out);
        }
    }

    static void jar(Path classesRoot, String packagePath, Path jar) throws IOException {
        Files.createDirectories(jar.getParent());
        List<Path> files;
        try (Stream<Path> s = Files.walk(classesRoot.resolve(packagePath))) {
            files = s.filter(Files::isRegularFile).collect(Collectors.toList());
        }
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out)) {
            for (Path f : files) {
                j.putNextEntry(new JarEntry(classesRoot.relativize(f).toString().replace('\\', '/')));
                j.write(Files.readAllBytes(f));
                j.closeEntry();
            }
        }
    }

    /**
     * The ConfigurationUI bundle made from the app module's compiled classes (the app's and the
     * apps' library's it carries) and manifest.
     */
    static Path configurationUi(Path dir) throws IOException {
        Path classes = Paths.get(System.getProperty("cell.app.classes", "../apps/configuration-ui/target/classes"));
        jar(classes, "org/rtdroid", dir.resolve("classes.jar"));
        Files.copy(Paths.get(System.getProperty("cell.app.manifest",
                "../apps/configuration-ui/src/main/AndroidManifest.xml")), dir.resolve("AndroidManifest.xml"));
        return dir;
    }

    /** A copy in {@code dir} of the fall alert app's bundle as its module packs it (android-cell/target/apps/fall-alert). */
    static Path fallAlert(Path dir) throws IOException {
        Path packed = repo().resolve("android-cell/target/apps/fall-alert");
        for (String f : new String[] {"AndroidManifest.xml", "classes.jar"}) {
            Files.copy(packed.resolve(f), dir.resolve(f));
        }
        return dir;
    }

    /**
     * A test app's manifest: its package, version code and label, what it declares before its
     * application ({@code uses}, one element a line), its launcher activity (a class of the test
     * app's package, exported, MAIN and LAUNCHER), the started and the exported bound service every
     * test app carries, then its own {@code components} (one element a line).
     */
    static String manifest(String pkg, int versionCode, String label, String uses, String launcher, String components) {
        return """
                <?xml version="1.0" encoding="utf-8"?>
                <manifest xmlns:android="http://schemas.android.com/apk/res/android"
                    package="%s" android:versionCode="%d" android:versionName="test">
                %s<application android:label="%s">
                <activity android:name="org.rtdroid.android.cell.testapp.%s" android:exported="true">
                  <intent-filter>
                    <action android:name="android.intent.action.MAIN" />
                    <category android:name="android.intent.category.LAUNCHER" />
                  </intent-filter>
                </activity>
                <service android:name="org.rtdroid.android.cell.testapp.TestService" />
                <service android:name="org.rtdroid.android.cell.testapp.EchoBinderService" android:exported="true" />
                %s</application>
                </manifest>
                """.formatted(pkg, versionCode, uses, label, launcher, components);
    }

    static final String TEST_APP_MANIFEST = manifest("org.rtdroid.celltest", 3, "Cell test app", """
            <uses-permission android:name="org.rtdroid.permission.CROSS_CONTEXT" />
            <uses-permission android:name="org.rtdroid.permission.REALTIME_BROADCAST" />
            """, "TestActivity", """
            <meta-data android:name="org.rtdroid.channels" android:value="echo,test.boom" />
            <receiver android:name="org.rtdroid.android.cell.testapp.BoomReceiver" android:exported="true">
              <intent-filter>
                <action android:name="org.rtdroid.test.BOOM" />
              </intent-filter>
            </receiver>
            """);

    /** The test app (classes from this module's test-classes). */
    static Path testApp(Path dir) throws IOException {
        return testApp(dir, TEST_APP_MANIFEST);
    }

    /** The test app's classes under another manifest (another package, version). */
    static Path testApp(Path dir, String manifest) throws IOException {
        Path testClasses = Paths.get(Bundles.class.getProtectionDomain().getCodeSource().getLocation().getPath());
        jar(testClasses, "org/rtdroid/android/cell/testapp", dir.resolve("classes.jar"));
        Files.writeString(dir.resolve("AndroidManifest.xml"), manifest);
        return dir;
    }
}
