package org.rtdroid.runtime.sensor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.event.HandlerStrategy;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.sensor.sim.UinputDevice;

/**
 * The device side through the kernel: the simulator's uinput accelerometer and gyroscope, found
 * by name under /sys/class/input and read through /dev/input/eventN by a {@link SensorService}.
 * Runs only where /dev/uinput exists (the qemu RT cell after {@code modprobe evdev uinput}, as
 * root); this build host has no uinput, so here it is skipped with that reason.
 */
class UinputDeviceTest {
    @Test
    void framesWrittenIntoUinputReachAListener() throws Exception {
        assumeTrue(Files.exists(Path.of(UinputDevice.UINPUT)),
                UinputDevice.UINPUT + " does not exist here (no uinput module): run this test in the qemu RT cell");
        SensorService service = new SensorService("u", 2, 64, HandlerStrategy.BOUND, 0, 90, null);
        try (UinputDevice acc = UinputDevice.accelerometer(); UinputDevice gyro = UinputDevice.gyroscope()) {
            service.start();
            SensorManager sm = service.manager(30);
            SensorServiceTest.Recorder r = new SensorServiceTest.Recorder();
            sm.registerListener(r, sm.getDefaultSensor(Sensor.TYPE_ACCELEROMETER), 0);
            FifoDevices.await("the service opened both devices (" + service.describeDevices() + ")", 30_000, service::devicesOpen);
            long before = Linux.monotonicNanos();
            // evdev drops a frame whose values did not change, so each frame differs
            for (int i = 1; i <= 10; i++) {
                acc.writeFrame(100 * i, -200, 9_807 + i);
                gyro.writeFrame(i, 0, 0);
            }
            FifoDevices.await("ten accelerometer events", 30_000, () -> r.count.get() >= 10);
            assertArrayEquals(new float[] {1.0f, -0.2f, 9.817f}, r.values[9], 1e-6f);
            assertEquals(true, r.stamps[0] >= before - 1_000, "kernel stamps on CLOCK_MONOTONIC (EVIOCSCLOCKID)");
            assertEquals(0, service.unknownEvents());
        } finally {
            service.stop();
        }
    }
}
