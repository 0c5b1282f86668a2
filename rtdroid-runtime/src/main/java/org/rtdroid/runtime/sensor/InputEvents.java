package org.rtdroid.runtime.sensor;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemorySegment;

/**
 * The kernel's {@code struct input_event} on 64-bit Linux (linux/input.h) and the sensor path's
 * conventions for it, shared by the reader and the simulator's device side.
 *
 * <pre>
 *   offset 0  tv_sec   (8)   time of the event, CLOCK_MONOTONIC once EVIOCSCLOCKID is set
 *   offset 8  tv_usec  (8)
 *   offset 16 type     (u16) EV_SYN, EV_ABS, ...
 *   offset 18 code     (u16) SYN_REPORT, ABS_X, ...
 *   offset 20 value    (s32)
 * </pre>
 *
 * A frame is the axis events of one reading followed by {@code EV_SYN/SYN_REPORT}; evdev reports
 * only axes whose value changed, so an axis keeps its last value across frames. Units on the
 * wire: the accelerometer's ABS_X/Y/Z in {@link #ACCEL_UNITS_PER_MS2} per m/s², the gyroscope's
 * ABS_RX/RY/RZ in {@link #GYRO_UNITS_PER_RADS} per rad/s.
 */
public final class InputEvents {
    public static final int RECORD_BYTES = 24;
    public static final int SEC_OFFSET = 0;
    public static final int USEC_OFFSET = 8;
    public static final int TYPE_OFFSET = 16;
    public static final int CODE_OFFSET = 18;
    public static final int VALUE_OFFSET = 20;

    public static final int EV_SYN = 0x00;
    public static final int EV_ABS = 0x03;
    public static final int SYN_REPORT = 0;
    public static final int SYN_DROPPED = 3;
    public static final int ABS_X = 0x00;
    public static final int ABS_Y = 0x01;
    public static final int ABS_Z = 0x02;
    public static final int ABS_RX = 0x03;
    public static final int ABS_RY = 0x04;
    public static final int ABS_RZ = 0x05;
    /** INPUT_PROP_ACCELEROMETER: the device's axes are an accelerometer's (input-event-codes.h). */
    public static final int INPUT_PROP_ACCELEROMETER = 0x06;

    /** Raw units per m/s² (1 unit = 1 mm/s²); ±16 g fits the declared range. */
    public static final int ACCEL_UNITS_PER_MS2 = 1000;
    /** Raw units per rad/s (1 unit = 1 mrad/s). */
    public static final int GYRO_UNITS_PER_RADS = 1000;
    public static final int ACCEL_RANGE_UNITS = 16 * 9807 * ACCEL_UNITS_PER_MS2 / 1000;
    public static final int GYRO_RANGE_UNITS = 35 * GYRO_UNITS_PER_RADS; // ~2000 deg/s
    public static final float STANDARD_GRAVITY = 9.80665f;

    /** EVIOCSCLOCKID = _IOW('E', 0xa0, int): stamp this reader's events with the given clock. */
    public static final long EVIOCSCLOCKID = (1L << 30) | (4L << 16) | ((long) 'E' << 8) | 0xa0;

    private InputEvents() {}

    /** Writes one record at {@code offset}: the time as CLOCK_MONOTONIC nanoseconds truncated to µs. */
    public static void put(MemorySegment buf, long offset, long timeNanos, int type, int code, int value) {
        buf.set(JAVA_LONG, offset + SEC_OFFSET, timeNanos / 1_000_000_000L);
        buf.set(JAVA_LONG, offset + USEC_OFFSET, (timeNanos % 1_000_000_000L) / 1_000L);
        buf.set(JAVA_SHORT, offset + TYPE_OFFSET, (short) type);
        buf.set(JAVA_SHORT, offset + CODE_OFFSET, (short) code);
        buf.set(JAVA_INT, offset + VALUE_OFFSET, value);
    }

    static int type(MemorySegment buf, long offset) {
        return Short.toUnsignedInt(buf.get(JAVA_SHORT, offset + TYPE_OFFSET));
    }

    static int code(MemorySegment buf, long offset) {
        return Short.toUnsignedInt(buf.get(JAVA_SHORT, offset + CODE_OFFSET));
    }

    static int value(MemorySegment buf, long offset) {
        return buf.get(JAVA_INT, offset + VALUE_OFFSET);
    }

    /** The record's time in nanoseconds, or -1 if tv_sec or tv_usec is out of range (a malformed record). */
    static long timeNanos(MemorySegment buf, long offset) {
        long sec = buf.get(JAVA_LONG, offset + SEC_OFFSET);
        long usec = buf.get(JAVA_LONG, offset + USEC_OFFSET);
        if (sec < 0 || sec > Long.MAX_VALUE / 1_000_000_000L - 1 || usec < 0 || usec >= 1_000_000L) {
            return -1;
        }
        return sec * 1_000_000_000L + usec * 1_000L;
    }
}
