package org.rtdroid.android.cell;

import org.rtdroid.android.cell.os.CellLog;

import android.os.Build;
import android.text.Hyphenator;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Locale;

import javax.annotation.Priority;

import org.robolectric.nativeruntime.DefaultNativeRuntimeLoader;

/**
 * Loads Robolectric's native graphics runtime (Skia, HWUI, minikin, ICU) from the files the build
 * unpacked once into {@code android-cell/target/dist/nativeruntime/}, instead of Robolectric's
 * default of inflating ~230 MiB of fonts, ICU data and the library out of its jar into a new temp
 * directory at every start (seconds of a cell's start, and as much written to disk each time).
 *
 * <p>Chosen over the default by Robolectric's plugin injector (a higher {@link Priority}; listed in
 * {@code META-INF/services}). It does what the default does at SDK 34 with those files: the font
 * directory, ICU data and hyphenation directory as the native code reads them, the library, then
 * the hyphenator. Without the directory (a test JVM started without the dist's jvm.args) or at
 * another SDK, it leaves the work to the default.
 */
@Priority(0)
public class CellNativeRuntimeLoader extends DefaultNativeRuntimeLoader {
    /** The unpacked runtime: fonts/, hyphen-data/, icu/, native/linux/x86_64/ (set by jvm.args). */
    static final String PROP_DIR = "org.rtdroid.cell.nativeRuntimeDir";
    static final String LIBRARY = "native/linux/x86_64/librobolectric-nativeruntime.so";
    static final String ICU_DATA = "icu/icudt68l.dat";

    @Override
    public synchronized void ensureLoaded() {
        Path dir = unpackedDir();
        if (dir == null || Build.VERSION.SDK_INT != Main.SUPPORTED_SDK
                || !"linux".equalsIgnoreCase(System.getProperty("os.name"))
                || !"amd64".equals(System.getProperty("os.arch"))) {
            super.ensureLoaded();
            return;
        }
        if (loaded.getAndSet(true)) {
            return;
        }
        long t0 = System.nanoTime();
        // Android's FontListParser wants the trailing slash.
        System.setProperty("robolectric.nativeruntime.fontdir", dir.resolve("fonts") + "/");
        System.setProperty("icu.data.path", dir.resolve(ICU_DATA).toString());
        System.setProperty("icu.locale.default", Locale.getDefault().toLanguageTag());
        System.load(dir.resolve(LIBRARY).toString());
        System.setProperty("hyphen.data.dir", dir.resolve("hyphen-data").toString());
        Hyphenator.init();
        CellLog.i(CellHost.TAG, "native graphics runtime loaded from " + dir + " in "
                + (System.nanoTime() - t0) / 1_000_000 + " ms");
    }

    /** The unpacked runtime's directory when it is complete, else null. */
    static Path unpackedDir() {
        String p = System.getProperty(PROP_DIR);
        if (p == null) {
            return null;
        }
        Path dir = Paths.get(p).toAbsolutePath();
        for (String part : new String[] {LIBRARY, ICU_DATA, "fonts/fonts.xml", "hyphen-data"}) {
            if (!Files.exists(dir.resolve(part))) {
                CellLog.w(CellHost.TAG, "-D" + PROP_DIR + "=" + p + " has no " + part
                        + " (rebuild the cell: mvn package): extracting the native graphics runtime instead");
                return null;
            }
        }
        return dir;
    }
}
