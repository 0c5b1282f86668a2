package org.rtdroid.rtcell.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rtdroid.rtcell.agent.VersionRecordFiles.blank;
import static org.rtdroid.rtcell.agent.VersionRecordFiles.text;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The version record in physical memory (the Xen RT domain's state bank through /dev/mem), here a
 * regular file standing in for /dev/mem with the bank at a page-aligned offset: the block device's
 * layout at that address, nothing outside it touched, read afresh by a new store (a restarted cell).
 */
class PhysicalMemoryStoreTest {
    private static final long BANK = 0x3000;

    @TempDir
    Path dir;

    private Path mem(long bytes) throws IOException {
        return blank(dir.resolve("mem"), bytes);
    }

    private static PhysicalMemoryStore at(Path mem, long bytes) {
        return new PhysicalMemoryStore(new RegionLocator.PhysicalRange(mem, BANK, bytes));
    }

    @Test
    void theRecordLivesInTheBankWithTheBlockDevicesLayout() throws Exception {
        Path mem = mem(BANK + BlockDeviceStore.DEVICE_BYTES + 4096);
        PhysicalMemoryStore store = at(mem, BlockDeviceStore.DEVICE_BYTES);
        assertNull(store.read());
        store.write(text("first\n"));
        store.write(text("second\n"));
        byte[] raw = Files.readAllBytes(mem);
        assertEquals('R', raw[(int) BANK]);
        assertEquals('R', raw[(int) BANK + BlockDeviceStore.SLOT_BYTES]);
        for (int i = 0; i < BANK; i++) {
            assertEquals(0, raw[i], "byte " + i + " before the bank");
        }
        assertArrayEquals(text("second\n"), at(mem, BlockDeviceStore.DEVICE_BYTES).read(), "a restarted cell: the newest copy");
        // the same bytes are what the block device store reads
        Path disk = dir.resolve("disk");
        Files.write(disk, java.util.Arrays.copyOfRange(raw, (int) BANK, (int) (BANK + BlockDeviceStore.DEVICE_BYTES)));
        assertArrayEquals(text("second\n"), new BlockDeviceStore(disk).read());
    }

    @Test
    void aCorruptBankIsRefusedNamingItAndASmallOneToo() throws Exception {
        Path mem = mem(BANK + BlockDeviceStore.DEVICE_BYTES);
        PhysicalMemoryStore store = at(mem, BlockDeviceStore.DEVICE_BYTES);
        store.read();
        store.write(text("v\n"));
        try (RandomAccessFile f = new RandomAccessFile(mem.toFile(), "rw")) {
            f.seek(BANK + BlockDeviceStore.HEADER_BYTES);
            f.write('x');
        }
        IOException e = assertThrows(IOException.class, () -> at(mem, BlockDeviceStore.DEVICE_BYTES).read());
        assertTrue(e.getMessage().startsWith("the version record " + mem + "@0x3000+131072 is corrupt: copy 0 fails its CRC-32"),
                e.getMessage());
        e = assertThrows(IOException.class, () -> at(mem, 65536).read());
        assertEquals("cannot use " + mem + "@0x3000+65536 for the version record: it has 65536 bytes, the record needs"
                + " 131072 (two copies of 65536)", e.getMessage());
    }
}
