package org.rtdroid.runtime.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.manifest.DropPolicy;

class BroadcastChannelTest {
    @Test
    void oneStoredIntentServesEverySubscriberAndTheLastReturnsIt() {
        BroadcastChannel ch = new BroadcastChannel("b", 1, 16, 3, DropPolicy.NEWEST, false);
        ChannelSender s = new ChannelSender("b", "s", 50, true);
        assertEquals(ChannelSender.SENT, ch.broadcast(s, m -> m.what = 7));
        // One slot only: until all three subscribers took it, the pool is empty.
        assertEquals(ChannelSender.DROPPED_FULL, ch.broadcast(s, m -> m.what = 8));
        RealtimeIntent[] seen = new RealtimeIntent[3];
        for (int i = 0; i < 3; i++) {
            int k = i;
            assertTrue(ch.subscriber(i).deliverOne(m -> seen[k] = m));
            if (i < 2) {
                assertEquals(ChannelSender.DROPPED_FULL, ch.broadcast(s, m -> m.what = 9), "still held by " + (2 - i));
            }
        }
        assertSame(seen[0], seen[1], "the stored intent is shared, not copied per subscriber");
        assertSame(seen[1], seen[2]);
        assertEquals(7, seen[2].what);
        assertEquals(ChannelSender.SENT, ch.broadcast(s, m -> m.what = 10), "the last recipient returned it");
    }

    @Test
    void subscribersSeePriorityOrderAndStealingSkipsStartedIntents() {
        BroadcastChannel ch = new BroadcastChannel("b", 2, 16, 2, DropPolicy.PRIORITY_OLDEST, false);
        ChannelSender low = new ChannelSender("b", "low", 10, true);
        ChannelSender high = new ChannelSender("b", "high", 90, true);
        ch.broadcast(low, m -> m.what = 1);
        ch.broadcast(low, m -> m.what = 2);
        // Subscriber 0 starts on intent 1: only intent 2 may now be stolen.
        int[] got = new int[1];
        assertTrue(ch.subscriber(0).deliverOne(m -> {
            got[0] = m.what;
            assertEquals(ChannelSender.SENT, ch.broadcast(high, x -> x.what = 3));
        }));
        assertEquals(1, got[0]);
        assertEquals(1, ch.stolenCount());
        assertTrue(ch.subscriber(1).deliverOne(m -> got[0] = m.what));
        assertEquals(3, got[0], "subscriber 1 sees the high-priority intent first");
        assertTrue(ch.subscriber(1).deliverOne(m -> got[0] = m.what));
        assertEquals(1, got[0]);
        assertFalse(ch.subscriber(1).deliverOne(m -> { }));
        assertEquals(1, low.takeStolen());
    }
}
