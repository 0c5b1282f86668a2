package org.rtdroid.examples.fall;

import static org.rtdroid.examples.fall.FallProtocol.SENDER;

import org.rtdroid.contract.fall.Fall.Alert;
import org.rtdroid.runtime.component.RealtimeService;
import org.rtdroid.runtime.sensor.Sensor;
import org.rtdroid.runtime.sensor.SensorEvent;
import org.rtdroid.runtime.sensor.SensorEventListener;
import org.rtdroid.runtime.sensor.SensorManager;
import org.rtdroid.runtime.xcc.CrossContextClosure;
import org.rtdroid.runtime.xcc.CrossContextIntent;
import org.rtdroid.runtime.xcc.CrossContextPublisher;

/**
 * The fall detection application (dissertation 3.8.3.1): a {@link SensorEventListener} on the
 * accelerometer, run at the service's priority (the highest of the cell's applications), feeds
 * every event to a {@link FallDetector}; a detected fall is published on cross-context channel
 * {@code fall.alert} (where the dissertation's app notified a server over Wi-Fi), and the
 * Android cell's FallAlert app shows it.
 *
 * <p>Registration happens at start (it allocates); delivery allocates nothing: the detector keeps
 * its state in fields, and the alert (the app's contract, {@link Alert}) is encoded into the
 * runtime's pre-allocated outbound slot.
 */
public final class FallDetectionService extends RealtimeService implements SensorEventListener, CrossContextClosure {
    private final FallDetector detector = new FallDetector();
    private final Alert alert = new Alert();
    private CrossContextPublisher alerts;
    private SensorManager sensors;
    private volatile long alertsRefused;
    private volatile long events;

    @Override
    public void onCreate() {
        alerts = crossContextPublisher(Alert.CHANNEL);
    }

    @Override
    public void onStartCommand() {
        sensors = sensorManager();
        Sensor accelerometer = sensors.getDefaultSensor(Sensor.TYPE_ACCELEROMETER);
        sensors.registerListener(this, accelerometer, SensorManager.SENSOR_DELAY_FASTEST);
    }

    @Override
    public void onDestroy() {
        if (sensors != null) {
            sensors.unregisterListener(this);
        }
    }

    @Override
    public void onSensorChanged(SensorEvent e) {
        events++;
        if (detector.onSample(e.timestamp, e.values[0], e.values[1], e.values[2])
                && alerts.publish(this) != CrossContextPublisher.PUBLISHED) {
            alertsRefused++;
        }
    }

    /** Fills the fall alert. */
    @Override
    public void genMsg(CrossContextIntent out) {
        out.setAction(Alert.ACTION_FALL);
        out.setSender(SENDER);
        out.setSenderPriority(Alert.PRIORITY);
        alert.clear().impactNanos(detector.lastImpactNanos()).falls(detector.falls())
                .peakG((float) detector.lastPeakG()).freeFallMs(detector.lastFreeFallNanos() / 1e6f);
        out.setPayloadLength(alert.encode(out.payload(), 0)); // at most Alert.MAX_BYTES (32): cannot fail
    }

    public long falls() { return detector.falls(); }
    public long events() { return events; }
    public long alertsRefused() { return alertsRefused; }
}
