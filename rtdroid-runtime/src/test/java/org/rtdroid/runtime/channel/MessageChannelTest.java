package org.rtdroid.runtime.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.manifest.DropPolicy;

class MessageChannelTest {
    private static MessageClosure what(int w) {
        return m -> m.what = w;
    }

    private static List<Integer> drain(MessageChannel ch) {
        List<Integer> got = new ArrayList<>();
        RealtimeIntent into = new RealtimeIntent("c", 16);
        while (ch.receive(into)) {
            got.add(into.what);
        }
        return got;
    }

    @Test
    void deliversBySenderPriorityThenArrival() {
        MessageChannel ch = new MessageChannel("c", 8, 16, DropPolicy.PRIORITY_OLDEST, false);
        ChannelSender low = new ChannelSender("c", "low", 10, true);
        ChannelSender mid = new ChannelSender("c", "mid", 50, true);
        ChannelSender high = new ChannelSender("c", "high", 90, true);
        ch.send(low, what(1));
        ch.send(mid, what(2));
        ch.send(low, what(3));
        ch.send(high, what(4));
        ch.send(mid, what(5));
        assertEquals(List.of(4, 2, 5, 1, 3), drain(ch));
    }

    @Test
    void fifoOrderIgnoresPriority() {
        MessageChannel ch = new MessageChannel("c", 8, 16, DropPolicy.NEWEST, true);
        ch.send(new ChannelSender("c", "a", 10, true), what(1));
        ch.send(new ChannelSender("c", "b", 90, true), what(2));
        assertEquals(List.of(1, 2), drain(ch));
    }

    @Test
    void higherPrioritySenderStealsTheLowestOldestSlotAndTheVictimIsTold() {
        MessageChannel ch = new MessageChannel("c", 3, 16, DropPolicy.PRIORITY_OLDEST, false);
        ChannelSender low = new ChannelSender("c", "low", 10, true);
        ChannelSender low2 = new ChannelSender("c", "low2", 10, true);
        ChannelSender mid = new ChannelSender("c", "mid", 50, true);
        ChannelSender high = new ChannelSender("c", "high", 90, true);
        assertEquals(ChannelSender.SENT, ch.send(low, what(1)));
        assertEquals(ChannelSender.SENT, ch.send(low2, what(2)));
        assertEquals(ChannelSender.SENT, ch.send(mid, what(3)));
        // Full. A sender of no higher priority than the lowest queued is refused.
        assertEquals(ChannelSender.DROPPED_FULL, ch.send(low2, what(9)));
        assertEquals(1, ch.droppedCount());
        // High steals the slot of the lowest-priority, oldest message: low's message 1.
        assertEquals(ChannelSender.SENT, ch.send(high, what(4)));
        assertEquals(1, ch.stolenCount());
        assertEquals(1, low.stolenTotal());
        assertEquals(0, low2.stolenTotal());
        // The victim learns it at its next send, through its pre-allocated exception; nothing is queued.
        MessageStolenException e = assertThrows(MessageStolenException.class, () -> ch.send(low, what(5)));
        assertEquals(1, e.stolenCount());
        assertEquals("low", e.senderName());
        assertEquals("c", e.channelName());
        assertEquals(List.of(4, 3, 2), drain(ch));
        // Told once; the next send goes through, and the same exception object is reused later.
        assertEquals(ChannelSender.SENT, ch.send(low, what(6)));
        ch.send(low2, what(7));
        ch.send(low2, what(8));
        ch.send(high, what(10));
        MessageStolenException again = assertThrows(MessageStolenException.class, () -> ch.send(low, what(11)));
        assertSame(e, again);
    }

    @Test
    void oldestPolicyReclaimsTheOldestWhateverItsPriority() {
        MessageChannel ch = new MessageChannel("c", 2, 16, DropPolicy.OLDEST, false);
        ChannelSender high = new ChannelSender("c", "high", 90, false);
        ChannelSender low = new ChannelSender("c", "low", 10, false);
        ch.send(high, what(1));
        ch.send(low, what(2));
        assertEquals(ChannelSender.SENT, ch.send(low, what(3)));
        assertEquals(1, high.stolenTotal());
        assertEquals(List.of(2, 3), drain(ch));
    }

    @Test
    void newestPolicyRefusesTheNewcomer() {
        MessageChannel ch = new MessageChannel("c", 1, 16, DropPolicy.NEWEST, false);
        ch.send(new ChannelSender("c", "a", 10, true), what(1));
        assertEquals(ChannelSender.DROPPED_FULL, ch.send(new ChannelSender("c", "b", 90, true), what(2)));
        assertEquals(List.of(1), drain(ch));
    }

    @Test
    void aMessageBeingDeliveredCannotBeStolen() {
        MessageChannel ch = new MessageChannel("c", 1, 16, DropPolicy.PRIORITY_OLDEST, false);
        ChannelSender low = new ChannelSender("c", "low", 10, true);
        ChannelSender high = new ChannelSender("c", "high", 90, true);
        ch.send(low, what(1));
        int[] seen = new int[1];
        assertTrue(ch.deliverOne(m -> {
            seen[0] = m.what;
            // While the consumer holds it, the pool is empty and nothing is queued to steal.
            assertEquals(ChannelSender.DROPPED_FULL, ch.send(high, what(2)));
        }));
        assertEquals(1, seen[0]);
        assertEquals(0, low.stolenTotal());
        assertEquals(ChannelSender.SENT, ch.send(high, what(3)));
    }

    @Test
    void payloadIsBoundedByTheDeclaredDataSize() {
        MessageChannel ch = new MessageChannel("c", 1, 8, DropPolicy.NEWEST, false);
        ChannelSender s = new ChannelSender("c", "s", 10, true);
        assertThrows(IllegalArgumentException.class, () -> ch.send(s, m -> m.setPayload(new byte[9], 0, 9)));
        assertEquals(0, ch.size(), "a failing closure returns its slot");
        assertEquals(ChannelSender.SENT, ch.send(s, m -> m.putInt(0, 7).putInt(4, 8)));
        RealtimeIntent into = new RealtimeIntent("c", 8);
        assertTrue(ch.receive(into));
        assertEquals(7, into.getInt(0));
        assertEquals(8, into.getInt(4));
        assertEquals(8, into.payloadLength());
        assertEquals(10, into.senderPriority());
        assertEquals("s", into.senderName());
        assertFalse(ch.receive(into));
    }
}
