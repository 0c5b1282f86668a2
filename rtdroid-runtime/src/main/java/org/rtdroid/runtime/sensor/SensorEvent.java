package org.rtdroid.runtime.sensor;

/**
 * One reading, as Android's {@code android.hardware.SensorEvent}. Pre-allocated and reused: the
 * object a listener receives is valid only during {@link SensorEventListener#onSensorChanged};
 * copy what must outlive the call.
 */
public final class SensorEvent {
    /** x, y, z (accelerometer m/s², gyroscope rad/s) or azimuth, pitch, roll (orientation, degrees). */
    public final float[] values = new float[3];
    /**
     * CLOCK_MONOTONIC nanoseconds of the input frame's SYN_REPORT (the kernel's stamp of the
     * input event, microsecond resolution); for orientation, that of the frame it was computed from.
     */
    public long timestamp;
    /**
     * CLOCK_MONOTONIC nanoseconds when the polling thread took the frame from its device: from
     * {@link #timestamp} to here the frame waited in the kernel's buffer (the seed's "buffering
     * delay", Figs. 3.20-3.22), from here to the listener it crossed the SensorManager.
     */
    public long readNanos;
    public Sensor sensor;

    SensorEvent() {}

    void copyFrom(SensorEvent e) {
        values[0] = e.values[0];
        values[1] = e.values[1];
        values[2] = e.values[2];
        timestamp = e.timestamp;
        readNanos = e.readNanos;
        sensor = e.sensor;
    }
}
