package org.rtdroid.android.cell;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.annotation.Config;
import org.robolectric.annotation.GraphicsMode;
import org.robolectric.annotation.LooperMode;

/**
 * The AOSP framework sandbox the cell lives in. INSTRUMENTATION_TEST looper mode gives the main
 * Looper its own thread (this method runs on another); NATIVE graphics renders real views for
 * screenshots; the two shadows make the host the framework's ActivityManager and logcat.
 */
@RunWith(RobolectricTestRunner.class)
@Config(sdk = Main.SUPPORTED_SDK, manifest = Config.NONE, qualifiers = "w360dp-h640dp-xhdpi",
        shadows = {CellContextImplShadow.class, CellLogShadow.class})
@LooperMode(LooperMode.Mode.INSTRUMENTATION_TEST)
@GraphicsMode(GraphicsMode.Mode.NATIVE)
public class CellSandbox {
    @Test
    public void serve() throws Exception {
        CellHost.run();
    }
}
