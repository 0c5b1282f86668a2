package org.rtdroid.runtime.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.manifest.DropPolicy;
import org.rtdroid.runtime.memory.ScopeAccessError;
import org.rtdroid.runtime.memory.TransferScope;

class BulkChannelTest {
    @Test
    void ownershipMovesAndTheSenderCannotTouchASentBuffer() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            BulkChannel ch = new BulkChannel("bulk", 2, 1024, DropPolicy.OLDEST, arena.allocate(2048, 64));
            ChannelSender sender = new ChannelSender("bulk", "rec", 90, true);
            TransferScope[] kept = new TransferScope[1];
            long[] offset = new long[1];
            assertEquals(ChannelSender.SENT, ch.send(sender, s -> {
                offset[0] = s.allocate(1000);
                s.putInt(offset[0], 0xCAFE);
                kept[0] = s; // a sender that tries to keep the buffer
            }));
            // After the send the sender can neither read nor write nor allocate in it.
            ScopeAccessError read = assertThrows(ScopeAccessError.class, () -> kept[0].getInt(offset[0]));
            assertEquals(ScopeAccessError.Reason.NOT_OWNER, read.reason());
            assertThrows(ScopeAccessError.class, () -> kept[0].putInt(offset[0], 1));
            assertThrows(ScopeAccessError.class, () -> kept[0].allocate(8));

            // The receiver (another thread) reads the very same memory: zero copy.
            AtomicReference<Object> result = new AtomicReference<>();
            Thread receiver = new Thread(() -> {
                try {
                    assertTrue(ch.receive(s -> {
                        result.set(s == kept[0] ? s.getInt(offset[0]) : "copied");
                        // While the receiver owns it, the sender's thread still may not touch it.
                    }));
                } catch (Throwable t) {
                    result.set(t);
                }
            });
            receiver.start();
            receiver.join();
            assertEquals(0xCAFE, result.get());
            assertThrows(ScopeAccessError.class, () -> kept[0].getInt(offset[0]), "reclaimed after receipt");
            assertFalse(ch.receive(s -> { }));
        }
    }

    @Test
    void aFullChannelReclaimsTheOldestQueuedScopeAndTellsTheSender() {
        try (Arena arena = Arena.ofShared()) {
            BulkChannel ch = new BulkChannel("bulk", 2, 64, DropPolicy.OLDEST, arena.allocate(128, 64));
            ChannelSender sender = new ChannelSender("bulk", "rec", 90, true);
            for (int i = 0; i < 3; i++) {
                int n = i;
                if (i == 2) {
                    assertEquals(ChannelSender.SENT, ch.send(sender, s -> s.putLong(s.allocate(8), n)));
                } else {
                    ch.send(sender, s -> s.putLong(s.allocate(8), n));
                }
            }
            assertEquals(1, ch.reclaimedCount());
            MessageStolenException e = assertThrows(MessageStolenException.class,
                    () -> ch.send(sender, s -> s.allocate(8)));
            assertNotNull(e.getMessage());
            long[] got = new long[2];
            assertTrue(ch.receive(s -> got[0] = s.getLong(0)));
            assertTrue(ch.receive(s -> got[1] = s.getLong(0)));
            assertEquals(1, got[0], "block 0 was reclaimed");
            assertEquals(2, got[1]);
        }
    }

    @Test
    void newestPolicyRefusesWhenFull() {
        try (Arena arena = Arena.ofShared()) {
            BulkChannel ch = new BulkChannel("bulk", 1, 64, DropPolicy.NEWEST, arena.allocate(64, 64));
            ChannelSender sender = new ChannelSender("bulk", "rec", 90, true);
            assertEquals(ChannelSender.SENT, ch.send(sender, s -> s.allocate(8)));
            assertEquals(ChannelSender.DROPPED_FULL, ch.send(sender, s -> s.allocate(8)));
        }
    }
}
