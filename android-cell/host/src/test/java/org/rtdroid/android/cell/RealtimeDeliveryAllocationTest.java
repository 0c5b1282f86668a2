package org.rtdroid.android.cell;

import org.junit.jupiter.api.Test;

/** The broadcast queue's real-time delivery thread allocates nothing: runs {@link RealtimeDeliveryAllocationSandbox}. */
class RealtimeDeliveryAllocationTest {
    @Test
    void theRealtimeDeliveryThreadAllocatesNothingAfterWarmUp() {
        SandboxRun.assertAllPass(RealtimeDeliveryAllocationSandbox.class, 2);
    }
}
