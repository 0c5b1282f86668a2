package org.rtdroid.rtcell.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Finds the shared region: a path as given, ({@code auto}) the ivshmem PCI device's BAR 2, or a
 * physical range {@code DEVICE@0xADDRESS+BYTES} (a Xen static shared memory region reached through
 * /dev/mem in a domU, e.g. {@code /dev/mem@0x34000000+4194304}).
 */
public final class RegionLocator {
    /** A physical range of a memory device; mapped with {@code RegionMemory.mapPhysical}. */
    public record PhysicalRange(Path device, long address, long bytes) {
    }

    /**
     * The physical range a {@code DEVICE@0xADDRESS+BYTES} spec names, or null when the spec is a
     * path or {@code auto}.
     *
     * @throws IllegalArgumentException if the spec has an '@' but is not a well-formed range
     */
    public static PhysicalRange physicalRange(String spec) {
        int at = spec.lastIndexOf('@');
        if (at < 0 || !spec.startsWith("/dev/")) {
            return null;
        }
        String range = spec.substring(at + 1);
        int plus = range.indexOf('+');
        try {
            if (at == 0 || !range.startsWith("0x") || plus < 0) {
                throw new NumberFormatException();
            }
            long address = Long.parseLong(range.substring(2, plus), 16);
            long bytes = Long.parseLong(range.substring(plus + 1));
            if (address < 0 || bytes <= 0) {
                throw new NumberFormatException();
            }
            return new PhysicalRange(Path.of(spec.substring(0, at)), address, bytes);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--region " + spec
                    + ": a physical range is DEVICE@0xHEXADDRESS+DECIMALBYTES, e.g. /dev/mem@0x34000000+4194304");
        }
    }

    public static final String IVSHMEM_VENDOR = "0x1af4";
    public static final String IVSHMEM_DEVICE = "0x1110";

    private RegionLocator() {
    }

    /**
     * @param pciDevices normally {@code /sys/bus/pci/devices}
     * @throws IllegalArgumentException if no (or an unreadable) region is found
     */
    public static Path locate(String spec, Path pciDevices) {
        PhysicalRange physical = physicalRange(spec);
        if (physical != null) {
            if (!Files.exists(physical.device())) {
                throw new IllegalArgumentException("--region " + spec + ": no such device " + physical.device());
            }
            return physical.device();
        }
        if (!spec.equals("auto")) {
            Path p = Path.of(spec);
            if (!Files.isRegularFile(p) && !Files.exists(p)) {
                throw new IllegalArgumentException("--region " + spec + ": no such file");
            }
            return p;
        }
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> devices = Files.newDirectoryStream(pciDevices)) {
            for (Path dev : devices) {
                if (IVSHMEM_VENDOR.equals(read(dev.resolve("vendor"))) && IVSHMEM_DEVICE.equals(read(dev.resolve("device")))) {
                    found.add(dev.resolve("resource2"));
                }
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("--region auto: cannot list " + pciDevices + ": " + e.getMessage());
        }
        if (found.isEmpty()) {
            throw new IllegalArgumentException("--region auto: no ivshmem PCI device (vendor " + IVSHMEM_VENDOR
                    + ", device " + IVSHMEM_DEVICE + ") in " + pciDevices);
        }
        Collections.sort(found);
        Path bar = found.get(0);
        if (!Files.exists(bar)) {
            throw new IllegalArgumentException("--region auto: " + bar + " does not exist (BAR 2 not exposed)");
        }
        return bar;
    }

    private static String read(Path p) {
        try {
            return new String(Files.readAllBytes(p), StandardCharsets.US_ASCII).trim();
        } catch (IOException e) {
            return "";
        }
    }
}
