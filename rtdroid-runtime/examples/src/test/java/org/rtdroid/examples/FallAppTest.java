package org.rtdroid.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rtdroid.contract.fall.Fall;
import org.rtdroid.examples.fall.FallDetectionService;
import org.rtdroid.runtime.boot.DeployedApp;
import org.rtdroid.runtime.boot.RuntimeHost;
import org.rtdroid.runtime.sensor.Sensor;

/**
 * The fall app from its shipped manifest in a real RuntimeHost: it deploys, its service listens on
 * the accelerometer (and only there), it may publish on fall.alert, and undeploying removes the
 * listener. The sensor path itself (uinput → evdev → SensorManager → alert) runs in the qemu RT
 * cell: tests/robot/suites/05_fall.robot.
 */
class FallAppTest {
    private final RuntimeHost host = AppHarness.host();

    @AfterEach
    void tearDown() {
        host.shutdown();
    }

    @Test
    void deploysAndListensOnTheAccelerometer() throws Exception {
        DeployedApp app = AppHarness.deploy(host, "fall");
        assertNotNull(app.component(FallDetectionService.class.getName()));
        assertNotNull(app.crossContextPublisher(Fall.Alert.CHANNEL));
        assertEquals(1, app.sensorService().listeners(Sensor.TYPE_ACCELEROMETER));
        assertEquals(0, app.sensorService().listeners(Sensor.TYPE_GYROSCOPE));
        host.undeploy(app.name());
        assertEquals(0, app.sensorService().listeners(Sensor.TYPE_ACCELEROMETER));
    }
}
