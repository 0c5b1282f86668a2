package org.rtdroid.bridge;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The bytes of one shared region, whatever backs them: a /dev/shm file (host board), the ivshmem
 * PCI BAR file {@code /sys/bus/pci/devices/<bdf>/resource2} (QEMU guest), or a physical range of
 * {@code /dev/mem} (a Xen reserved region).
 *
 * <p>The buffer is always little-endian (a mapped buffer starts big-endian). Physical ranges are
 * device memory on some boards: every access the bridge makes there is naturally aligned and no
 * atomic read-modify-write is ever used (single writer per field), see {@link #alignedOnly()}.
 */
public final class RegionMemory implements AutoCloseable {
    /** Physical ranges are mapped in whole pages. */
    public static final long PAGE_BYTES = 4096;

    private final ByteBuffer buffer;
    private final boolean alignedOnly;
    private final String description;
    private volatile boolean closed;

    private RegionMemory(ByteBuffer buffer, boolean alignedOnly, String description) {
        this.buffer = buffer.order(ByteOrder.LITTLE_ENDIAN);
        this.alignedOnly = alignedOnly;
        this.description = description;
    }

    /**
     * Maps the whole of an existing file read-write: a /dev/shm region or an ivshmem BAR's
     * {@code resource2}. Exactly the file's size is mapped (sysfs refuses a larger mapping).
     */
    public static RegionMemory mapFile(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long sizeBytes = channel.size();
            if (sizeBytes < RegionDescriptor.HEADER_BYTES) {
                throw new IOException(file + ": " + sizeBytes + " bytes, a region needs at least "
                        + RegionDescriptor.HEADER_BYTES + " (is it created and sized by the board?)");
            }
            if (sizeBytes > Integer.MAX_VALUE) {
                throw new IOException(file + ": " + sizeBytes + " bytes, more than a region may have ("
                        + Integer.MAX_VALUE + ")");
            }
            MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, sizeBytes);
            return new RegionMemory(mapped, false, file.toString());
        }
    }

    /**
     * Maps {@code sizeBytes} of physical memory at {@code physAddr} through {@code devMem}
     * (normally /dev/mem, opened O_SYNC so the kernel maps it uncached where that matters). Both
     * numbers must be multiples of {@link #PAGE_BYTES}. The result is {@link #alignedOnly()}.
     *
     * <p>A character device is mapped with open + mmap through the FFM API (Java 22+, reached
     * reflectively: {@code FileChannel.map} refuses devices, it tries to extend them); a regular
     * file standing in for the device (tests, a dump) is mapped with {@code FileChannel.map}.
     */
    public static RegionMemory mapPhysical(Path devMem, long physAddr, long sizeBytes) throws IOException {
        if (physAddr < 0 || physAddr % PAGE_BYTES != 0) {
            throw new IllegalArgumentException("physAddr 0x" + Long.toHexString(physAddr)
                    + " must be a non-negative multiple of " + PAGE_BYTES);
        }
        if (sizeBytes < PAGE_BYTES || sizeBytes > Integer.MAX_VALUE || sizeBytes % PAGE_BYTES != 0) {
            throw new IllegalArgumentException("sizeBytes " + sizeBytes + " must be a multiple of " + PAGE_BYTES
                    + " between " + PAGE_BYTES + " and " + Integer.MAX_VALUE);
        }
        String description = devMem + "@0x" + Long.toHexString(physAddr) + "+" + sizeBytes;
        if (!java.nio.file.Files.isRegularFile(devMem)) {
            return new RegionMemory(PhysicalMap.map(devMem, physAddr, sizeBytes), true, description);
        }
        try (FileChannel channel = FileChannel.open(devMem, StandardOpenOption.READ, StandardOpenOption.WRITE,
                StandardOpenOption.SYNC)) {
            if (channel.size() < physAddr + sizeBytes) {
                throw new IOException(devMem + " has " + channel.size() + " bytes, less than 0x"
                        + Long.toHexString(physAddr) + " + " + sizeBytes);
            }
            MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_WRITE, physAddr, sizeBytes);
            return new RegionMemory(mapped, true, description);
        }
    }

    /** Any buffer (tests, or memory mapped by other means); its byte order is set to little-endian. */
    public static RegionMemory wrap(ByteBuffer buffer) {
        return new RegionMemory(buffer.duplicate(), false, "wrapped " + (buffer.isDirect() ? "direct" : "heap")
                + " buffer");
    }

    /** As {@link #wrap(ByteBuffer)}, but with only aligned accesses (as for device memory). */
    public static RegionMemory wrapAlignedOnly(ByteBuffer buffer) {
        return new RegionMemory(buffer.duplicate(), true, "wrapped aligned-only buffer");
    }

    /** The whole region, little-endian, position 0. Callers take a {@code duplicate()} to move positions. */
    public ByteBuffer buffer() {
        if (closed) {
            throw new IllegalStateException(description + " is closed");
        }
        return buffer;
    }

    /** The usable size: the buffer's limit (a mapping's whole size). */
    public int sizeBytes() {
        return buffer.limit();
    }

    /** True when the memory must only see naturally aligned accesses (device memory). */
    public boolean alignedOnly() {
        return alignedOnly;
    }

    public String description() {
        return description;
    }

    /**
     * Marks the memory closed. Java 11 cannot unmap a MappedByteBuffer on demand; the mapping goes
     * with the buffer's garbage collection, so close only once nothing uses the region any more.
     */
    @Override
    public void close() {
        closed = true;
    }

    @Override
    public String toString() {
        return "RegionMemory{" + description + ", " + buffer.limit() + " bytes}";
    }
}
