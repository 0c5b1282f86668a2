package org.rtdroid.runtime.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import org.junit.jupiter.api.Test;

class ScopeTest {
    @Test
    void bumpAllocatesAlignedAndResets() {
        try (Arena arena = Arena.ofConfined()) {
            Scope s = new Scope("Comp", ScopeKind.RELEASE, arena.allocate(64, 8));
            long a = s.allocate(3);
            long b = s.allocate(8);
            assertEquals(0, a);
            assertEquals(8, b, "allocations are 8-byte aligned");
            s.putInt(b, 42);
            assertEquals(42, s.getInt(b));
            s.reset();
            assertEquals(0, s.usedBytes());
            assertEquals(16, s.highWaterBytes());
            ScopeAccessError e = assertThrows(ScopeAccessError.class, () -> s.getInt(b), "offsets die with the release");
            assertEquals(ScopeAccessError.Reason.NOT_ALLOCATED, e.reason());
        }
    }

    @Test
    void overflowRaisesThePreallocatedNamedError() {
        try (Arena arena = Arena.ofConfined()) {
            Scope s = new Scope("ProcessingService", ScopeKind.PERSISTENT, arena.allocate(100, 8));
            s.allocate(64);
            ScopeOverflowError e1 = assertThrows(ScopeOverflowError.class, () -> s.allocate(100));
            assertEquals("ProcessingService", e1.componentName());
            assertEquals(ScopeKind.PERSISTENT, e1.scopeKind());
            assertEquals(100, e1.capacityBytes());
            assertEquals(64 + 104 - 100, e1.overflowBytes());
            assertTrue(e1.getMessage().contains("ProcessingService: persistent scope of 100 B overflowed by 68 B"),
                    e1.getMessage());
            ScopeOverflowError e2 = assertThrows(ScopeOverflowError.class, () -> s.allocate(1000));
            assertSame(e1, e2, "one pre-allocated error per scope");
            assertEquals(0, e2.getStackTrace().length, "no stack trace is captured");
            assertEquals(64, s.usedBytes(), "a failed allocation takes nothing");
        }
    }

    @Test
    void transferScopeRefusesEveryoneButItsOwner() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            TransferScope t = new TransferScope("bulk", 0, arena.allocate(64, 8));
            assertThrows(ScopeAccessError.class, () -> t.allocate(8), "nobody owns a pooled scope");
            t.grantToSender(Thread.currentThread());
            long at = t.allocate(8);
            t.putLong(at, 7);
            Thread other = new Thread(() -> assertThrows(ScopeAccessError.class, () -> t.getLong(at)));
            other.start();
            other.join();
            t.relinquish();
            ScopeAccessError e = assertThrows(ScopeAccessError.class, () -> t.getLong(at));
            assertEquals(ScopeAccessError.Reason.NOT_OWNER, e.reason());
            assertThrows(UnsupportedOperationException.class, t::reset);
        }
    }
}
