package org.rtdroid.runtime.sensor.sim;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import org.rtdroid.runtime.os.PosixIo;
import org.rtdroid.runtime.sensor.InputEvents;
import org.rtdroid.runtime.sensor.Sensor;

/**
 * A virtual three-axis input device made through {@code /dev/uinput} (linux/uinput.h): the
 * simulator's accelerometer (ABS_X/Y/Z, INPUT_PROP_ACCELEROMETER) or gyroscope (ABS_RX/RY/RZ).
 * The kernel's input core then delivers what {@link #writeFrame} writes to every reader of the
 * device's {@code /dev/input/eventN}, stamped by the kernel. {@link #close} destroys the device.
 * Needs the uinput module and write access to /dev/uinput (root in the RT cell).
 */
public final class UinputDevice extends InputEventWriter {
    public static final String UINPUT = "/dev/uinput";
    static final long UI_DEV_CREATE = PosixIo.io('U', 1);
    static final long UI_DEV_DESTROY = PosixIo.io('U', 2);
    /** struct uinput_setup: struct input_id (4 × u16), char name[80], u32 ff_effects_max. */
    static final int UINPUT_SETUP_BYTES = 92;
    static final int UINPUT_MAX_NAME_SIZE = 80;
    static final long UI_DEV_SETUP = PosixIo.iow('U', 3, UINPUT_SETUP_BYTES);
    /** struct uinput_abs_setup: u16 code, (2 bytes padding), struct input_absinfo (6 × s32). */
    static final int UINPUT_ABS_SETUP_BYTES = 28;
    static final long UI_ABS_SETUP = PosixIo.iow('U', 4, UINPUT_ABS_SETUP_BYTES);
    static final long UI_SET_EVBIT = PosixIo.iow('U', 100, 4);
    static final long UI_SET_ABSBIT = PosixIo.iow('U', 103, 4);
    static final long UI_SET_PROPBIT = PosixIo.iow('U', 110, 4);
    static final int BUS_VIRTUAL = 0x06;

    private final String name;

    private UinputDevice(String name, int fd, int firstAxisCode) {
        super(name, fd, firstAxisCode);
        this.name = name;
    }

    /** The simulator's accelerometer, named {@link Sensor#ACCELEROMETER_DEVICE}. */
    public static UinputDevice accelerometer() {
        return create(Sensor.ACCELEROMETER_DEVICE, InputEvents.ABS_X, InputEvents.ACCEL_RANGE_UNITS,
                InputEvents.ACCEL_UNITS_PER_MS2, true);
    }

    /** The simulator's gyroscope, named {@link Sensor#GYROSCOPE_DEVICE}. */
    public static UinputDevice gyroscope() {
        return create(Sensor.GYROSCOPE_DEVICE, InputEvents.ABS_RX, InputEvents.GYRO_RANGE_UNITS,
                InputEvents.GYRO_UNITS_PER_RADS, false);
    }

    /**
     * Creates a device with three absolute axes from {@code firstAxisCode}, each in ±{@code range}.
     *
     * @throws IllegalStateException with the step and errno when the kernel refuses
     */
    public static UinputDevice create(String name, int firstAxisCode, int range, int resolution, boolean accelerometer) {
        byte[] nameBytes = name.getBytes(StandardCharsets.US_ASCII);
        if (nameBytes.length >= UINPUT_MAX_NAME_SIZE) {
            throw new IllegalArgumentException("uinput device name longer than " + (UINPUT_MAX_NAME_SIZE - 1) + " bytes");
        }
        int fd = PosixIo.open(UINPUT, PosixIo.O_WRONLY | PosixIo.O_NONBLOCK | PosixIo.O_CLOEXEC);
        if (fd < 0) {
            throw new IllegalStateException("cannot open " + UINPUT + ": " + PosixIo.describe(fd)
                    + " (needs the uinput module loaded and root)");
        }
        try (Arena a = Arena.ofConfined()) {
            check(fd, "UI_SET_EVBIT EV_SYN", PosixIo.ioctl(fd, UI_SET_EVBIT, InputEvents.EV_SYN));
            check(fd, "UI_SET_EVBIT EV_ABS", PosixIo.ioctl(fd, UI_SET_EVBIT, InputEvents.EV_ABS));
            if (accelerometer) {
                check(fd, "UI_SET_PROPBIT INPUT_PROP_ACCELEROMETER",
                        PosixIo.ioctl(fd, UI_SET_PROPBIT, InputEvents.INPUT_PROP_ACCELEROMETER));
            }
            MemorySegment abs = a.allocate(UINPUT_ABS_SETUP_BYTES, 4);
            for (int axis = 0; axis < 3; axis++) {
                int code = firstAxisCode + axis;
                check(fd, "UI_SET_ABSBIT " + code, PosixIo.ioctl(fd, UI_SET_ABSBIT, code));
                abs.fill((byte) 0);
                abs.set(JAVA_SHORT, 0, (short) code);
                abs.set(JAVA_INT, 4 + 4, -range);     // minimum
                abs.set(JAVA_INT, 4 + 8, range);      // maximum
                abs.set(JAVA_INT, 4 + 20, resolution); // units per m/s² or rad/s
                check(fd, "UI_ABS_SETUP " + code, PosixIo.ioctl(fd, UI_ABS_SETUP, abs));
            }
            MemorySegment setup = a.allocate(UINPUT_SETUP_BYTES, 4);
            setup.set(JAVA_SHORT, 0, (short) BUS_VIRTUAL);
            setup.set(JAVA_SHORT, 2, (short) 0x5254); // vendor "RT"
            setup.set(JAVA_SHORT, 4, (short) (accelerometer ? 1 : 2));
            setup.set(JAVA_SHORT, 6, (short) 1);
            for (int i = 0; i < nameBytes.length; i++) {
                setup.set(JAVA_BYTE, 8 + i, nameBytes[i]);
            }
            check(fd, "UI_DEV_SETUP", PosixIo.ioctl(fd, UI_DEV_SETUP, setup));
            check(fd, "UI_DEV_CREATE", PosixIo.ioctl(fd, UI_DEV_CREATE, 0L));
        } catch (RuntimeException e) {
            PosixIo.close(fd);
            throw e;
        }
        return new UinputDevice(name, fd, firstAxisCode);
    }

    private static void check(int fd, String step, int rc) {
        if (rc < 0) {
            throw new IllegalStateException("uinput " + step + " refused: " + PosixIo.describe(rc));
        }
    }

    public String name() { return name; }

    /** UI_DEV_DESTROY and close: the device disappears from /dev/input. */
    @Override
    public void close() {
        if (fd >= 0) {
            PosixIo.ioctl(fd, UI_DEV_DESTROY, 0L);
        }
        super.close();
    }
}
