package org.rtdroid.android.cell;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.annotation.Config;
import org.robolectric.annotation.GraphicsMode;
import org.robolectric.annotation.LooperMode;

/**
 * An app process's framework sandbox: the cell's ({@link CellSandbox}) without the shadow that
 * makes the host the ActivityManager (the system server is another process, reached over its
 * IPC); logcat's shadow stays, so the app's log reaches the system server's through the process's
 * output; the app's calls out go to the system server's IPC ({@link AppProcessContextShadow}).
 */
@RunWith(RobolectricTestRunner.class)
@Config(sdk = Main.SUPPORTED_SDK, manifest = Config.NONE, qualifiers = "w360dp-h640dp-xhdpi",
        shadows = {CellLogShadow.class, AppProcessContextShadow.class})
@LooperMode(LooperMode.Mode.INSTRUMENTATION_TEST)
@GraphicsMode(GraphicsMode.Mode.NATIVE)
public class AppProcessSandbox {
    @Test
    public void serve() throws Exception {
        AppProcessHost.run();
    }
}
