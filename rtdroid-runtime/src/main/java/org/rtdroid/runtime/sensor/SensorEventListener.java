package org.rtdroid.runtime.sensor;

/**
 * Receives sensor events, as Android's {@code android.hardware.SensorEventListener}. Called on a
 * thread of the sensor's handler dispatcher at the priority of the component that registered the
 * listener; one call at a time per listener. Must not allocate after warm-up.
 */
public interface SensorEventListener {
    /** A new reading; {@code event} is reused after the call returns. */
    void onSensorChanged(SensorEvent event);

    /** Android's accuracy callback: the input devices report none, so it is never called. */
    default void onAccuracyChanged(Sensor sensor, int accuracy) {}
}
