package org.rtdroid.rtcell.agent;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32;

/**
 * The record on a raw block device of the cell's own, without a file system (the QEMU cell's
 * virtio disk): two copies, each in a 64 KiB slot, and a write goes to the slot not holding the
 * newest copy, so a write cut short leaves the previous copy readable. A slot:
 *
 * <pre>
 *  0  magic "RTCELLVR"      8 bytes
 *  8  format version = 1    u32 LE
 * 12  record bytes n        u32 LE (at most 64 KiB - 32)
 * 16  sequence              u64 LE (the copy with sequence s lies in slot s mod 2)
 * 24  CRC-32                u32 LE over bytes 0..23 and the record
 * 28  zero                  4 bytes
 * 32  the record            n bytes (DeployedVersions' text)
 * </pre>
 *
 * A device of zeros holds no record yet. Reads and writes bypass the guest's page cache
 * (O_DIRECT, whole aligned slots): a QEMU cell restored from its boot snapshot would otherwise be
 * served the blocks it had cached before the snapshot. A regular file (the same layout; tests, a
 * cell on a host) is read and written through the page cache, with fsync. The same layout in
 * physical memory (the Xen RT domain's state bank): {@link PhysicalMemoryStore}.
 */
final class BlockDeviceStore implements VersionStore {
    static final int SLOT_BYTES = 64 * 1024;
    static final int HEADER_BYTES = 32;
    static final int MAX_RECORD_BYTES = SLOT_BYTES - HEADER_BYTES;
    static final long DEVICE_BYTES = 2L * SLOT_BYTES;
    static final byte[] MAGIC = {'R', 'T', 'C', 'E', 'L', 'L', 'V', 'R'};
    static final int FORMAT_VERSION = 1;
    private static final int ALIGN = 4096; // a multiple of every logical block size

    private final Path device;
    private long sequence = -1; // of the newest copy; -1: none

    BlockDeviceStore(Path device) {
        this.device = device;
    }

    @Override
    public byte[] read() throws IOException {
        ByteBuffer[] slots = {aligned(), aligned()};
        long size;
        try (FileChannel ch = open(StandardOpenOption.READ)) {
            size = ch.size();
            if (size >= DEVICE_BYTES) {
                for (int i = 0; i < 2; i++) {
                    readFully(ch, slots[i], (long) i * SLOT_BYTES);
                    slots[i].flip();
                }
            }
        } catch (NoSuchFileException e) {
            throw new IOException("cannot read the version record " + device + ": no such device", e);
        } catch (IOException e) {
            throw new IOException("cannot read the version record " + device + ": " + e, e);
        }
        if (size < DEVICE_BYTES) {
            throw new IOException("cannot use " + device + " for the version record: it has " + size
                    + " bytes, the record needs " + DEVICE_BYTES + " (two copies of " + SLOT_BYTES + ")");
        }
        long[] newestSequence = {-1};
        byte[] newest = newest(slots, device.toString(), newestSequence);
        sequence = newestSequence[0];
        return newest;
    }

    /**
     * The newest whole copy of the record in {@code slots} (the two slots, position 0), or null when
     * both are blank; its sequence in {@code sequenceOut[0]} (-1: none). Shared by every store with
     * this layout (a block device, physical memory).
     *
     * @throws IOException naming {@code where} when neither copy is whole and not both are blank
     */
    static byte[] newest(ByteBuffer[] slots, String where, long[] sequenceOut) throws IOException {
        String[] problems = new String[2];
        byte[] newest = null;
        boolean blank = true;
        long sequence = -1;
        for (int i = 0; i < 2; i++) {
            ByteBuffer slot = slots[i];
            if (isBlank(slot)) {
                problems[i] = "is blank";
                continue;
            }
            blank = false;
            problems[i] = check(slot, i);
            if (problems[i] == null && slot.getLong(16) > sequence) {
                sequence = slot.getLong(16);
                newest = new byte[slot.getInt(12)];
                slot.get(HEADER_BYTES, newest);
            }
        }
        sequenceOut[0] = sequence;
        if (newest == null && !blank) {
            throw new IOException("the version record " + where + " is corrupt: copy 0 " + problems[0] + ", copy 1 "
                    + problems[1] + "; it is not reset automatically (that would allow rollbacks): restore it, or"
                    + " zero the device to forget every application's version");
        }
        return newest;
    }

    @Override
    public void write(byte[] record) throws IOException {
        if (record.length > MAX_RECORD_BYTES) {
            throw new IOException("cannot write the version record " + device + ": " + record.length
                    + " bytes do not fit a copy (at most " + MAX_RECORD_BYTES + ")");
        }
        long next = sequence + 1;
        ByteBuffer slot = encode(aligned(), record, next);
        try (FileChannel ch = open(StandardOpenOption.WRITE)) {
            long at = (next % 2) * SLOT_BYTES;
            while (slot.hasRemaining()) {
                at += ch.write(slot, at);
            }
            ch.force(true); // a flush of the device's write cache, down to the host's disk image
        } catch (IOException e) {
            throw new IOException("cannot write the version record " + device + ": " + e, e);
        }
        sequence = next;
    }

    /** Fills {@code slot} (one slot, little-endian, zeroed) with copy {@code sequence} of {@code record}; position 0. */
    static ByteBuffer encode(ByteBuffer slot, byte[] record, long sequence) {
        slot.put(MAGIC).putInt(FORMAT_VERSION).putInt(record.length).putLong(sequence);
        slot.putInt(24, crc(slot, record)).position(HEADER_BYTES);
        return slot.put(record).clear();
    }

    @Override
    public String name() {
        return device.toString();
    }

    private FileChannel open(OpenOption mode) throws IOException {
        return Files.isRegularFile(device) ? FileChannel.open(device, mode)
                : FileChannel.open(device, mode, ExtendedOpenOption.DIRECT);
    }

    static ByteBuffer aligned() {
        // exactly one slot, starting on an aligned address (O_DIRECT wants aligned memory too)
        return ByteBuffer.allocateDirect(SLOT_BYTES + ALIGN).alignedSlice(ALIGN).slice(0, SLOT_BYTES)
                .order(ByteOrder.LITTLE_ENDIAN);
    }

    private static void readFully(FileChannel ch, ByteBuffer into, long at) throws IOException {
        while (into.hasRemaining()) {
            int n = ch.read(into, at + into.position());
            if (n < 0) {
                throw new IOException("the device ends inside a copy of the record");
            }
        }
    }

    private static boolean isBlank(ByteBuffer slot) {
        for (int i = 0; i < HEADER_BYTES; i += 8) {
            if (slot.getLong(i) != 0) {
                return false;
            }
        }
        return true;
    }

    /** Null when slot {@code index} holds a whole copy; else what is wrong with it. */
    private static String check(ByteBuffer slot, int index) {
        for (int i = 0; i < MAGIC.length; i++) {
            if (slot.get(i) != MAGIC[i]) {
                return "has no magic 'RTCELLVR'";
            }
        }
        if (slot.getInt(8) != FORMAT_VERSION) {
            return "has format version " + Integer.toUnsignedString(slot.getInt(8)) + " (this agent reads " + FORMAT_VERSION + ")";
        }
        int n = slot.getInt(12);
        if (n < 0 || n > MAX_RECORD_BYTES) {
            return "claims " + Integer.toUnsignedString(n) + " record bytes (at most " + MAX_RECORD_BYTES + ")";
        }
        long seq = slot.getLong(16);
        if (seq < 0 || seq % 2 != index) {
            return "has sequence " + Long.toUnsignedString(seq) + ", which belongs in copy " + Long.remainderUnsigned(seq, 2);
        }
        byte[] record = new byte[n];
        slot.get(HEADER_BYTES, record);
        return crc(slot, record) == slot.getInt(24) ? null : "fails its CRC-32 (a write cut short?)";
    }

    private static int crc(ByteBuffer slot, byte[] record) {
        CRC32 c = new CRC32();
        c.update(slot.slice(0, 24));
        c.update(record);
        return (int) c.getValue();
    }
}
