package org.rtdroid.runtime.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.component.RealtimeService;
import org.rtdroid.runtime.sensor.Sensor;
import org.rtdroid.runtime.sensor.SensorEvent;
import org.rtdroid.runtime.sensor.SensorEventListener;
import org.rtdroid.runtime.sensor.SensorManager;
import org.rtdroid.runtime.sensor.SensorService;

/**
 * An application declaring {@code <sensors>} deployed through the real {@link RuntimeHost}: a
 * service gets its SensorManager with {@code sensorManager()} and registers at its own priority;
 * an application without {@code <sensors>} gets one clear error. (This host has no input devices:
 * the service keeps looking for them; delivery is covered by SensorServiceTest.)
 */
class SensorDeploymentTest {
    private static final String MEM = "<memSizes total=\"16K\" persistent=\"8K\" release=\"8K\"/>";

    private RuntimeHost host;

    @AfterEach
    void tearDown() {
        if (host != null) {
            host.shutdown();
        }
    }

    public static final class Watcher extends RealtimeService implements SensorEventListener {
        static volatile int managerPriority;
        static volatile String failure;

        @Override
        public void onStartCommand() {
            try {
                SensorManager sm = sensorManager();
                managerPriority = sm.priority();
                sm.registerListener(this, sm.getDefaultSensor(Sensor.TYPE_ACCELEROMETER), SensorManager.SENSOR_DELAY_GAME);
                sm.registerListener(this, sm.getDefaultSensor(Sensor.TYPE_ORIENTATION), SensorManager.SENSOR_DELAY_GAME);
            } catch (RuntimeException e) {
                failure = e.getMessage();
            }
        }

        @Override
        public void onSensorChanged(SensorEvent event) {}
    }

    @Test
    void componentsRegisterAtTheirPriority() throws Exception {
        host = Apps.host();
        Watcher.failure = null;
        DeployedApp app = Apps.deploy(host, "sensing", Apps.service(Watcher.class, 42, MEM, "")
                + "<sensors listeners=\"2\" queue=\"8\" strategy=\"bound\"/>");
        Apps.await("the service registered", 10_000, () -> Watcher.managerPriority != 0 || Watcher.failure != null);
        assertNull(Watcher.failure);
        assertEquals(42, Watcher.managerPriority);
        SensorService s = app.sensorService();
        assertNotNull(s);
        assertEquals(1, s.listeners(Sensor.TYPE_ACCELEROMETER));
        assertEquals(1, s.listeners(Sensor.TYPE_ORIENTATION));
        assertEquals(0, s.listeners(Sensor.TYPE_GYROSCOPE));
        assertTrue(s.describeDevices().contains("rtdroid-accelerometer"), s.describeDevices());
    }

    @Test
    void noSensorsDeclaredIsNamed() throws Exception {
        host = Apps.host();
        Watcher.failure = null;
        Watcher.managerPriority = 0;
        DeployedApp app = Apps.deploy(host, "blind", Apps.service(Watcher.class, 42, MEM, ""));
        Apps.await("the service tried", 10_000, () -> Watcher.failure != null);
        assertTrue(Watcher.failure.contains("declares no <sensors"), Watcher.failure);
        assertNull(app.sensorService());
    }
}
