package org.rtdroid.rtcell.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Finds the shared region: a path as given, or ({@code auto}) the ivshmem PCI device's BAR 2. */
public final class RegionLocator {
    public static final String IVSHMEM_VENDOR = "0x1af4";
    public static final String IVSHMEM_DEVICE = "0x1110";

    private RegionLocator() {
    }

    /**
     * @param pciDevices normally {@code /sys/bus/pci/devices}
     * @throws IllegalArgumentException if no (or an unreadable) region is found
     */
    public static Path locate(String spec, Path pciDevices) {
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
