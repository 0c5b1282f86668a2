package org.rtdroid.bench.looper;

import org.junit.jupiter.api.AfterEach;

/** A test that starts one RT looper thread ({@link #thread}), quit after each test. */
abstract class RtLooperThreadTest {
    /** A message's what that makes the tests' handlers hold the looper until the test lets it go. */
    static final int BLOCK = -1;

    RtHandlerThread thread;

    @AfterEach
    void quit() throws InterruptedException {
        if (thread != null) {
            thread.quit();
            thread.join(5000);
        }
    }
}
