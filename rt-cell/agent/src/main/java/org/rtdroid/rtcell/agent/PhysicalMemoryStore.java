package org.rtdroid.rtcell.agent;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import org.rtdroid.bridge.RegionMemory;

/**
 * The record in a range of physical memory of the cell's own, reached through /dev/mem
 * ({@code --state-device /dev/mem@0xADDRESS+BYTES}): the Xen RT domain's state bank, static
 * shared memory whose machine memory is a file on the host, so it outlives the domain. The layout
 * is {@link BlockDeviceStore}'s (two 64 KiB copies, sequence and CRC-32; a write goes to the copy
 * not holding the newest one, so a write cut short leaves the previous copy whole).
 *
 * <p>In a domU the range is device memory (as the region is): the slots are copied in and out
 * with naturally aligned 8-byte loads and stores only. The range is mapped at the first read,
 * which the agent makes after attaching to the region, never before (a cell restored from its
 * boot snapshot must read what the bank holds now).
 */
final class PhysicalMemoryStore implements VersionStore {
    private final RegionLocator.PhysicalRange range;
    private RegionMemory memory;
    private long sequence = -1; // of the newest copy; -1: none

    PhysicalMemoryStore(RegionLocator.PhysicalRange range) {
        this.range = range;
    }

    @Override
    public byte[] read() throws IOException {
        if (memory == null) {
            if (range.bytes() < BlockDeviceStore.DEVICE_BYTES) {
                throw new IOException("cannot use " + name() + " for the version record: it has " + range.bytes()
                        + " bytes, the record needs " + BlockDeviceStore.DEVICE_BYTES + " (two copies of "
                        + BlockDeviceStore.SLOT_BYTES + ")");
            }
            if (!Files.exists(range.device())) {
                throw new IOException("cannot read the version record " + name() + ": no such device");
            }
            try {
                memory = RegionMemory.mapPhysical(range.device(), range.address(), BlockDeviceStore.DEVICE_BYTES);
            } catch (IOException | RuntimeException e) {
                throw new IOException("cannot map the version record " + name() + ": " + e.getMessage(), e);
            }
        }
        ByteBuffer[] slots = {copyIn(0), copyIn(1)};
        long[] newestSequence = {-1};
        byte[] newest = BlockDeviceStore.newest(slots, name(), newestSequence);
        sequence = newestSequence[0];
        return newest;
    }

    @Override
    public void write(byte[] record) throws IOException {
        if (memory == null) {
            throw new IOException("the version record " + name() + " is written before it was read");
        }
        if (record.length > BlockDeviceStore.MAX_RECORD_BYTES) {
            throw new IOException("cannot write the version record " + name() + ": " + record.length
                    + " bytes do not fit a copy (at most " + BlockDeviceStore.MAX_RECORD_BYTES + ")");
        }
        long next = sequence + 1;
        ByteBuffer slot = BlockDeviceStore.encode(slot(), record, next);
        ByteBuffer bank = memory.buffer().duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int at = (int) (next % 2) * BlockDeviceStore.SLOT_BYTES;
        for (int i = 0; i < BlockDeviceStore.SLOT_BYTES; i += 8) {
            bank.putLong(at + i, slot.getLong(i));
        }
        sequence = next;
    }

    @Override
    public String name() {
        return range.device() + "@0x" + Long.toHexString(range.address()) + "+" + range.bytes();
    }

    private ByteBuffer copyIn(int index) {
        ByteBuffer bank = memory.buffer().duplicate().order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer slot = slot();
        int at = index * BlockDeviceStore.SLOT_BYTES;
        for (int i = 0; i < BlockDeviceStore.SLOT_BYTES; i += 8) {
            slot.putLong(i, bank.getLong(at + i));
        }
        return slot;
    }

    private static ByteBuffer slot() {
        return ByteBuffer.allocate(BlockDeviceStore.SLOT_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    }
}
