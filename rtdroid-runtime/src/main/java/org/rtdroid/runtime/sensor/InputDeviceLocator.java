package org.rtdroid.runtime.sensor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Where the reader finds a sensor's input device: by evdev name among
 * {@code /sys/class/input/event*}{@code /device/name} (the cell's real path: the simulator's
 * uinput devices appear there), or at a fixed path (tests: a FIFO fed with kernel-format
 * records). Consulted at start and whenever the device is gone (allocates: set-up, never on a
 * frame's path).
 */
public interface InputDeviceLocator {
    /** @return the device file to open now, or null if it does not exist (yet) */
    Path locate();

    /** What the locator looks for, for reports ("evdev 'rtdroid-accelerometer'", a path). */
    String describe();

    /** The input device whose name is {@code evdevName}, found under {@code sysClassInput} (normally /sys/class/input). */
    static InputDeviceLocator byName(String evdevName, Path sysClassInput, Path devInput) {
        return new InputDeviceLocator() {
            @Override
            public Path locate() {
                List<Path> events = new ArrayList<>();
                try (Stream<Path> s = Files.list(sysClassInput)) {
                    s.filter(p -> p.getFileName().toString().startsWith("event")).forEach(events::add);
                } catch (IOException | SecurityException e) {
                    return null;
                }
                events.sort(null);
                for (Path e : events) {
                    try {
                        String name = Files.readString(e.resolve("device/name"), StandardCharsets.UTF_8).strip();
                        if (name.equals(evdevName)) {
                            Path dev = devInput.resolve(e.getFileName().toString());
                            return Files.exists(dev) ? dev : null;
                        }
                    } catch (IOException | SecurityException ignored) {
                        // a device that vanished while we looked, or one we may not read: not ours
                    }
                }
                return null;
            }

            @Override
            public String describe() { return "evdev '" + evdevName + "' under " + sysClassInput; }
        };
    }

    /**
     * System property naming a directory that stands in for the machine's root when finding input
     * devices by name ({@code <root>/sys/class/input}, {@code <root>/dev/input}): host tests build
     * such a tree with FIFOs as the devices, so a deployed application's sensors read them (this
     * host has no uinput). Unset on a board.
     */
    String INPUT_ROOT_PROPERTY = "rtdroid.sensor.input-root";

    /**
     * The input device named {@code evdevName} on this machine (/sys/class/input, /dev/input), or
     * under {@link #INPUT_ROOT_PROPERTY}'s directory when that is set.
     */
    static InputDeviceLocator byName(String evdevName) {
        String root = System.getProperty(INPUT_ROOT_PROPERTY);
        Path r = root == null || root.isEmpty() ? Path.of("/") : Path.of(root);
        return byName(evdevName, r.resolve("sys/class/input"), r.resolve("dev/input"));
    }

    /** Always {@code path} (when it exists): a FIFO or a known /dev/input/eventN. */
    static InputDeviceLocator atPath(Path path) {
        return new InputDeviceLocator() {
            @Override
            public Path locate() { return Files.exists(path) ? path : null; }

            @Override
            public String describe() { return path.toString(); }
        };
    }
}
