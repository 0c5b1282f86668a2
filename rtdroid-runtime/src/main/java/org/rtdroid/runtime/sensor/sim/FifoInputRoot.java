package org.rtdroid.runtime.sensor.sim;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.rtdroid.runtime.sensor.InputDeviceLocator;
import org.rtdroid.runtime.sensor.Sensor;

/**
 * The accelerometer's and gyroscope's input devices on a host without {@code /dev/uinput}: under a
 * temporary root, {@code /dev/input/event{0,1}} are FIFOs and {@code /sys/class/input/event{0,1}/device/name}
 * name them, so the sensor path and the simulator find them by name as they find evdev devices.
 * While open, {@link InputDeviceLocator#INPUT_ROOT_PROPERTY} names the root; {@link #close} clears
 * it and deletes the tree.
 */
public final class FifoInputRoot implements AutoCloseable {
    private final Path root;

    private FifoInputRoot(Path root) {
        this.root = root;
    }

    /** Makes the tree under a new temporary directory named {@code prefix...} and points the locator at it. */
    public static FifoInputRoot create(String prefix) throws IOException, InterruptedException {
        Path root = Files.createTempDirectory(prefix);
        String[] names = {Sensor.ACCELEROMETER_DEVICE, Sensor.GYROSCOPE_DEVICE};
        Files.createDirectories(root.resolve("dev/input"));
        for (int i = 0; i < names.length; i++) {
            Path dev = root.resolve("sys/class/input/event" + i + "/device");
            Files.createDirectories(dev);
            Files.writeString(dev.resolve("name"), names[i] + "\n");
            Path fifo = root.resolve("dev/input/event" + i);
            Process p = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
            if (p.waitFor() != 0) {
                throw new IOException("mkfifo " + fifo + " failed");
            }
        }
        System.setProperty(InputDeviceLocator.INPUT_ROOT_PROPERTY, root.toString());
        return new FifoInputRoot(root);
    }

    public Path root() { return root; }

    @Override
    public void close() throws IOException {
        System.clearProperty(InputDeviceLocator.INPUT_ROOT_PROPERTY);
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
