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

    @Test
    void allocatedMemoryReadsZeroEvenWhereThePreviousReleaseWrote() {
        try (Arena arena = Arena.ofConfined()) {
            var region = arena.allocate(256 * 1024, 8);
            region.fill((byte) 0x5a); // whatever the region held before the scope took it
            Scope s = new Scope("Comp", ScopeKind.RELEASE, region);
            long a = s.allocate(1024);
            for (long i = 0; i < 1024; i += 8) {
                assertEquals(0, s.getLong(a + i), "a fresh scope reads zero at " + i);
                s.putLong(a + i, -1L);
            }
            long big = s.allocate(200 * 1024); // more than one zeroing chunk
            s.putLong(big + 200 * 1024 - 8, 42);
            s.reset();
            long b = s.allocate(201 * 1024 + 8);
            for (long i = 0; i < 201 * 1024 + 8; i += 8) {
                if (s.getLong(b + i) != 0) {
                    throw new AssertionError("the previous release's bytes show through at " + i);
                }
            }
        }
    }

    @Test
    void resetZeroesWithoutAllocating() {
        try (Arena arena = Arena.ofConfined()) {
            Scope s = new Scope("Comp", ScopeKind.RELEASE, arena.allocate(256 * 1024, 8));
            for (int warm = 0; warm < 20_000; warm++) { // let the JIT compile reset and allocate
                s.allocate(1 + warm % 100_000);
                s.reset();
            }
            long before = HeapMeter.currentThreadAllocatedBytes();
            for (int i = 0; i < 1000; i++) {
                long at = s.allocate(32 + i * 64L);
                s.putLong(at, i);
                s.reset();
            }
            assertEquals(0, HeapMeter.currentThreadAllocatedBytes() - before, "allocate and reset allocate nothing");
        }
    }

    @Test
    void immortalScopeTakesAllocationsUntilSealedAndIsNeverCleared() {
        try (Arena arena = Arena.ofConfined()) {
            ImmortalScope s = new ImmortalScope("Comp", arena.allocate(64, 8));
            assertEquals(ScopeKind.IMMORTAL, s.kind());
            long at = s.allocate(16);
            assertEquals(0, s.getLong(at));
            s.putLong(at, 7);
            s.seal();
            ScopeAccessError e = assertThrows(ScopeAccessError.class, () -> s.allocate(8));
            assertEquals(ScopeAccessError.Reason.SEALED, e.reason());
            assertTrue(e.getMessage().contains("Comp/immortal: allocation after start-up"), e.getMessage());
            assertEquals(7, s.getLong(at), "what start-up allocated stays readable");
            s.putLong(at, 8);
            assertEquals(8, s.getLong(at));
            assertThrows(UnsupportedOperationException.class, s::reset);
            assertEquals(16, s.usedBytes());
        }
    }
}
