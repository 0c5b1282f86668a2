package org.rtdroid.rtcell.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --region DEVICE@0xADDRESS+BYTES: the Xen domU's static shared memory through /dev/mem. */
class RegionLocatorTest {
    @TempDir
    Path dir;

    @Test
    void aPhysicalRangeNamesDeviceAddressAndSize() {
        RegionLocator.PhysicalRange r = RegionLocator.physicalRange("/dev/mem@0x34000000+4194304");
        assertEquals(Path.of("/dev/mem"), r.device());
        assertEquals(0x34000000L, r.address());
        assertEquals(4194304L, r.bytes());
    }

    @Test
    void aPlainPathOrAutoIsNoPhysicalRange() {
        assertNull(RegionLocator.physicalRange("/dev/shm/rtdroid-host.region"));
        assertNull(RegionLocator.physicalRange("auto"));
    }

    @Test
    void aMalformedRangeIsRefusedWithTheExpectedForm() {
        for (String bad : new String[] {"/dev/mem@34000000+4096", "/dev/mem@0x34000000", "/dev/mem@0xZZ+4096",
                "/dev/mem@0x34000000+0", "/dev/mem@0x34000000+-4096"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> RegionLocator.physicalRange(bad), bad);
            assertTrue(e.getMessage().contains("DEVICE@0xHEXADDRESS+DECIMALBYTES"), e.getMessage());
        }
    }

    @Test
    void locatingARangeChecksItsDeviceExists() {
        assertEquals(Path.of("/dev/zero"), RegionLocator.locate("/dev/zero@0x1000+4096", dir));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RegionLocator.locate("/dev/nonexistent@0x1000+4096", dir));
        assertTrue(e.getMessage().contains("no such device"), e.getMessage());
    }
}
