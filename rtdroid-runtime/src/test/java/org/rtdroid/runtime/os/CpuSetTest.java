package org.rtdroid.runtime.os;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CpuSetTest {
    @Test
    void parsesLinuxListSyntax() {
        CpuSet s = CpuSet.parse("0, 2-4,7");
        assertArrayEquals(new int[] {0, 2, 3, 4, 7}, s.toArray());
        assertEquals("0,2-4,7", s.toString());
        assertEquals(s, CpuSet.of(7, 4, 3, 2, 0));
        assertTrue(s.contains(3));
        assertFalse(s.contains(5));
        assertEquals(0, s.first());
    }

    @Test
    void badListsAreRejectedWithTheOffendingItem() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CpuSet.parse("0,x"));
        assertTrue(e.getMessage().contains("\"x\""), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> CpuSet.parse("3-1"));
        assertTrue(e.getMessage().contains("3-1"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> CpuSet.parse(""));
        assertThrows(IllegalArgumentException.class, () -> CpuSet.of(1024));
        assertThrows(IllegalArgumentException.class, () -> CpuSet.of(-1));
    }
}
