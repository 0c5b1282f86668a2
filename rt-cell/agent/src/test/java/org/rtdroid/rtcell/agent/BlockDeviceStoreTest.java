package org.rtdroid.rtcell.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rtdroid.rtcell.agent.VersionRecordFiles.blank;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The version record on a raw disk (the QEMU cell's --state-device), here a regular file with
 * the disk's layout: two copies, the newest whole one wins, a copy cut short falls back to the
 * other, and anything else that is not blank is refused naming the device and each copy.
 */
class BlockDeviceStoreTest {
    @TempDir
    Path dir;

    private Path disk(long bytes) throws IOException {
        return blank(dir.resolve("state.img"), bytes);
    }

    private static byte[] text(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aBlankDiskHoldsNoRecordAndCopiesAlternate() throws Exception {
        Path disk = disk(BlockDeviceStore.DEVICE_BYTES);
        BlockDeviceStore store = new BlockDeviceStore(disk);
        assertNull(store.read());
        store.write(text("first\n"));   // sequence 0: copy 0
        store.write(text("second\n"));  // sequence 1: copy 1
        byte[] raw = Files.readAllBytes(disk);
        assertEquals('R', raw[0]);
        assertEquals('R', raw[BlockDeviceStore.SLOT_BYTES]);
        assertArrayEquals(text("second\n"), new BlockDeviceStore(disk).read(), "a new reader: the newest copy");
        store.write(text("third\n"));   // sequence 2: copy 0 again
        BlockDeviceStore again = new BlockDeviceStore(disk);
        assertArrayEquals(text("third\n"), again.read());
        again.write(text("fourth\n"));  // continues the sequence it read: copy 1
        assertArrayEquals(text("fourth\n"), new BlockDeviceStore(disk).read());
    }

    @Test
    void aCopyCutShortFallsBackToTheOther() throws Exception {
        Path disk = disk(BlockDeviceStore.DEVICE_BYTES);
        BlockDeviceStore store = new BlockDeviceStore(disk);
        store.read();
        store.write(text("old\n"));
        store.write(text("new\n"));
        try (RandomAccessFile f = new RandomAccessFile(disk.toFile(), "rw")) {
            f.seek(BlockDeviceStore.SLOT_BYTES + BlockDeviceStore.HEADER_BYTES);
            f.write('X'); // the newest copy's record, changed after its CRC: a torn write
        }
        assertArrayEquals(text("old\n"), new BlockDeviceStore(disk).read());
    }

    @Test
    void aDiskWithNoWholeCopyIsRefusedNamingEachCopy() throws Exception {
        Path disk = disk(BlockDeviceStore.DEVICE_BYTES);
        try (RandomAccessFile f = new RandomAccessFile(disk.toFile(), "rw")) {
            f.write(text("garbage that is not a record"));
        }
        IOException e = assertThrows(IOException.class, () -> new BlockDeviceStore(disk).read());
        assertEquals("the version record " + disk + " is corrupt: copy 0 has no magic 'RTCELLVR', copy 1 is blank;"
                + " it is not reset automatically (that would allow rollbacks): restore it, or zero the device to"
                + " forget every application's version", e.getMessage());
        byte[] raw = Files.readAllBytes(disk);
        assertEquals('g', raw[0], "the corrupt record is left for a person to look at");
    }

    @Test
    void aCopyInTheWrongSlotOrOfAnotherFormatIsNotBelieved() throws Exception {
        Path disk = disk(BlockDeviceStore.DEVICE_BYTES);
        BlockDeviceStore store = new BlockDeviceStore(disk);
        store.read();
        store.write(text("v\n")); // sequence 0 in copy 0
        byte[] raw = Files.readAllBytes(disk);
        byte[] moved = new byte[raw.length];
        System.arraycopy(raw, 0, moved, BlockDeviceStore.SLOT_BYTES, BlockDeviceStore.SLOT_BYTES);
        Files.write(disk, moved); // copy 0's bytes in slot 1
        IOException e = assertThrows(IOException.class, () -> new BlockDeviceStore(disk).read());
        assertTrue(e.getMessage().contains("copy 0 is blank, copy 1 has sequence 0, which belongs in copy 0"), e.getMessage());
        raw[8] = 2; // format version 2
        Files.write(disk, raw);
        e = assertThrows(IOException.class, () -> new BlockDeviceStore(disk).read());
        assertTrue(e.getMessage().contains("copy 0 has format version 2 (this agent reads 1)"), e.getMessage());
    }

    @Test
    void aDiskTooSmallOrARecordTooLargeIsAClearError() throws Exception {
        Path small = disk(BlockDeviceStore.DEVICE_BYTES - 512);
        IOException e = assertThrows(IOException.class, () -> new BlockDeviceStore(small).read());
        assertEquals("cannot use " + small + " for the version record: it has " + (BlockDeviceStore.DEVICE_BYTES - 512)
                + " bytes, the record needs " + BlockDeviceStore.DEVICE_BYTES + " (two copies of 65536)", e.getMessage());
        Path none = dir.resolve("absent");
        e = assertThrows(IOException.class, () -> new BlockDeviceStore(none).read());
        assertEquals("cannot read the version record " + none + ": no such device", e.getMessage());
        Path disk = disk(BlockDeviceStore.DEVICE_BYTES);
        BlockDeviceStore store = new BlockDeviceStore(disk);
        store.read();
        e = assertThrows(IOException.class, () -> store.write(new byte[BlockDeviceStore.MAX_RECORD_BYTES + 1]));
        assertTrue(e.getMessage().contains("do not fit a copy (at most 65504)"), e.getMessage());
    }

    @Test
    void theVersionsOnADeviceAreReadOnlyWhenLoadedAndSurviveARestart() throws Exception {
        Path disk = disk(BlockDeviceStore.DEVICE_BYTES);
        DeployedVersions v = DeployedVersions.onDevice(disk);
        IllegalStateException notYet = assertThrows(IllegalStateException.class, () -> v.of("echo"));
        assertEquals("the version record " + disk + " has not been read yet (load)", notYet.getMessage());
        v.load();
        v.set("echo", 2);
        DeployedVersions restarted = DeployedVersions.onDevice(disk);
        restarted.load();
        assertEquals(2, restarted.of("echo"));
        assertEquals("read from " + disk, restarted.where());
        assertEquals(List.of("versions of 1 application(s) read from " + disk, "recorded version: echo 2"),
                restarted.summary());
        for (int i = 0; i < DeployedVersions.SHOWN; i++) {
            restarted.set("app" + i, i + 1);
        }
        List<String> many = restarted.summary();
        assertEquals(DeployedVersions.SHOWN + 2, many.size(), many.toString());
        assertEquals("recorded version: app0 1", many.get(1));
        assertEquals("and 1 more application(s)", many.getLast());
    }
}
