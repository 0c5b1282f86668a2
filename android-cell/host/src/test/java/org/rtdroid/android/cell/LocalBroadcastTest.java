package org.rtdroid.android.cell;

import org.junit.jupiter.api.Test;

/** The apps' LocalBroadcastManager on the real framework's main looper: runs {@link LocalBroadcastSandbox}. */
class LocalBroadcastTest {
    @Test
    void localBroadcastsAreDeliveredBySenderPriorityOnTheMainLooper() {
        SandboxRun.assertAllPass(LocalBroadcastSandbox.class, 5);
    }
}
