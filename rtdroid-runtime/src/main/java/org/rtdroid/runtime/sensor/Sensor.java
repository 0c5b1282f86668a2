package org.rtdroid.runtime.sensor;

/**
 * A sensor of the cell, as Android's {@code android.hardware.Sensor}: a type and a name. The
 * accelerometer and the gyroscope are Linux input devices found by name
 * ({@link #ACCELEROMETER_DEVICE}, {@link #GYROSCOPE_DEVICE}); the orientation sensor is computed
 * from both (a software sensor). Instances come from {@link SensorManager#getDefaultSensor}.
 */
public final class Sensor {
    /** Acceleration including gravity, m/s², values x, y, z (Android's value). */
    public static final int TYPE_ACCELEROMETER = 1;
    /** Orientation in degrees: azimuth (yaw), pitch, roll (Android's deprecated value 3, computed here by fusion). */
    public static final int TYPE_ORIENTATION = 3;
    /** Rate of rotation, rad/s, about x, y, z (Android's value). */
    public static final int TYPE_GYROSCOPE = 4;

    /** evdev name of the accelerometer input device (what the simulator creates through uinput). */
    public static final String ACCELEROMETER_DEVICE = "rtdroid-accelerometer";
    /** evdev name of the gyroscope input device. */
    public static final String GYROSCOPE_DEVICE = "rtdroid-gyroscope";

    private final int type;
    private final String name;

    Sensor(int type, String name) {
        this.type = type;
        this.name = name;
    }

    public int getType() { return type; }

    public String getName() { return name; }

    /** "accelerometer", "gyroscope", "orientation" (also the names in reports), or null for another type. */
    public static String typeName(int type) {
        return switch (type) {
            case TYPE_ACCELEROMETER -> "accelerometer";
            case TYPE_GYROSCOPE -> "gyroscope";
            case TYPE_ORIENTATION -> "orientation";
            default -> null;
        };
    }

    @Override
    public String toString() { return "Sensor[" + name + ", type " + type + "]"; }
}
