package org.rtdroid.android.cell;

import org.junit.jupiter.api.Test;

/** Broadcast order through the cell's real delivery path: runs {@link BroadcastOrderSandbox}. */
class BroadcastOrderTest {
    @Test
    void broadcastsAreDeliveredBySenderPriorityThroughTheRealQueue() {
        SandboxRun.assertAllPass(BroadcastOrderSandbox.class, 7);
    }
}
