package org.rtdroid.android.cell;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Builds app bundles for the tests out of compiled class directories. */
final class Bundles {
    private Bundles() {
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

    /** The ConfigurationUI bundle made from the app module's compiled classes and manifest. */
    static Path configurationUi(Path dir) throws IOException {
        Path classes = Paths.get(System.getProperty("cell.app.classes", "../apps/configuration-ui/target/classes"));
        jar(classes, "org/rtdroid/cochlear/ui", dir.resolve("classes.jar"));
        Files.copy(Paths.get(System.getProperty("cell.app.manifest",
                "../apps/configuration-ui/src/main/AndroidManifest.xml")), dir.resolve("AndroidManifest.xml"));
        return dir;
    }

    static final String TEST_APP_MANIFEST = """
            <?xml version="1.0" encoding="utf-8"?>
            <manifest xmlns:android="http://schemas.android.com/apk/res/android"
                package="org.rtdroid.celltest" android:versionCode="3" android:versionName="test">
              <application android:label="Cell test app">
                <meta-data android:name="org.rtdroid.channels" android:value="echo,test.boom" />
                <activity android:name="org.rtdroid.android.cell.testapp.TestActivity" android:exported="true">
                  <intent-filter>
                    <action android:name="android.intent.action.MAIN" />
                    <category android:name="android.intent.category.LAUNCHER" />
                  </intent-filter>
                </activity>
                <service android:name="org.rtdroid.android.cell.testapp.TestService" />
                <receiver android:name="org.rtdroid.android.cell.testapp.BoomReceiver" android:exported="true">
                  <intent-filter>
                    <action android:name="org.rtdroid.test.BOOM" />
                  </intent-filter>
                </receiver>
              </application>
            </manifest>
            """;

    /** The test app (classes from this module's test-classes). */
    static Path testApp(Path dir) throws IOException {
        Path testClasses = Paths.get(Bundles.class.getProtectionDomain().getCodeSource().getLocation().getPath());
        jar(testClasses, "org/rtdroid/android/cell/testapp", dir.resolve("classes.jar"));
        Files.writeString(dir.resolve("AndroidManifest.xml"), TEST_APP_MANIFEST);
        return dir;
    }
}
