package org.rtdroid.runtime.sensor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Finding a device by evdev name, under the machine's root or the one {@link InputDeviceLocator#INPUT_ROOT_PROPERTY} names. */
class InputDeviceLocatorTest {
    @TempDir
    Path root;

    @AfterEach
    void clear() {
        System.clearProperty(InputDeviceLocator.INPUT_ROOT_PROPERTY);
    }

    private void device(int n, String name) throws Exception {
        Path d = root.resolve("sys/class/input/event" + n + "/device");
        Files.createDirectories(d);
        Files.writeString(d.resolve("name"), name + "\n");
        Files.createDirectories(root.resolve("dev/input"));
        Files.writeString(root.resolve("dev/input/event" + n), "");
    }

    @Test
    void findsTheDeviceByNameUnderTheInputRoot() throws Exception {
        device(0, "some-keyboard");
        device(3, Sensor.GYROSCOPE_DEVICE);
        device(7, Sensor.ACCELEROMETER_DEVICE);
        System.setProperty(InputDeviceLocator.INPUT_ROOT_PROPERTY, root.toString());
        assertEquals(root.resolve("dev/input/event7"), InputDeviceLocator.byName(Sensor.ACCELEROMETER_DEVICE).locate());
        assertEquals(root.resolve("dev/input/event3"), InputDeviceLocator.byName(Sensor.GYROSCOPE_DEVICE).locate());
        assertNull(InputDeviceLocator.byName("rtdroid-barometer").locate());
        assertTrue(InputDeviceLocator.byName(Sensor.GYROSCOPE_DEVICE).describe().contains(root.resolve("sys/class/input").toString()));
    }

    @Test
    void withoutThePropertyItLooksAtTheMachine() {
        assertEquals("evdev '" + Sensor.ACCELEROMETER_DEVICE + "' under /sys/class/input",
                InputDeviceLocator.byName(Sensor.ACCELEROMETER_DEVICE).describe());
    }
}
