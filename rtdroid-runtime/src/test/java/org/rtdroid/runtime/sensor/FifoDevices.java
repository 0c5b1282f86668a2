package org.rtdroid.runtime.sensor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;
import org.rtdroid.runtime.event.HandlerStrategy;
import org.rtdroid.runtime.os.RealtimePolicy;
import org.rtdroid.runtime.sensor.sim.InputEventWriter;

/**
 * Two FIFOs standing in for the accelerometer's and the gyroscope's /dev/input/eventN (this host
 * has no uinput): the test writes kernel-format {@code struct input_event} records into them, and
 * the service reads, frames and dispatches them exactly as it does an evdev device.
 */
final class FifoDevices implements AutoCloseable {
    final Path dir;
    final Path accelPath;
    final Path gyroPath;
    InputEventWriter accel;
    InputEventWriter gyro;

    FifoDevices() throws IOException, InterruptedException {
        dir = Files.createTempDirectory("rtdroid-sensor-");
        accelPath = dir.resolve("accel");
        gyroPath = dir.resolve("gyro");
        mkfifo(accelPath);
        mkfifo(gyroPath);
    }

    private static void mkfifo(Path p) throws IOException, InterruptedException {
        Process pr = new ProcessBuilder("mkfifo", p.toString()).inheritIO().start();
        if (pr.waitFor() != 0) {
            throw new IOException("mkfifo " + p + " failed");
        }
    }

    SensorService service(String name, int listeners, int queue, HandlerStrategy strategy, int poolSize,
                          IntFunction<RealtimePolicy> policyFor) {
        return new SensorService(name, listeners, queue, strategy, poolSize, 90, policyFor,
                InputDeviceLocator.atPath(accelPath), InputDeviceLocator.atPath(gyroPath));
    }

    /** Opens the writing ends (blocks until the service's polling thread opened the reading ends). */
    FifoDevices openWriters() {
        accel = InputEventWriter.open("accel FIFO", accelPath.toString(), InputEvents.ABS_X);
        gyro = InputEventWriter.open("gyro FIFO", gyroPath.toString(), InputEvents.ABS_RX);
        return this;
    }

    /** Waits (polling) until the condition holds; fails after {@code millis} (a hang detector, not a verdict). */
    static void await(String what, long millis, BooleanSupplier condition) throws InterruptedException {
        await(what, millis, condition, () -> "");
    }

    static void await(String what, long millis, BooleanSupplier condition, java.util.function.Supplier<String> state)
            throws InterruptedException {
        long end = System.nanoTime() + millis * 1_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("timed out after " + millis + " ms waiting for: " + what + " " + state.get());
            }
            Thread.sleep(1);
        }
    }

    @Override
    public void close() throws IOException {
        if (accel != null) {
            accel.close();
        }
        if (gyro != null) {
            gyro.close();
        }
        Files.deleteIfExists(accelPath);
        Files.deleteIfExists(gyroPath);
        Files.deleteIfExists(dir);
    }
}
