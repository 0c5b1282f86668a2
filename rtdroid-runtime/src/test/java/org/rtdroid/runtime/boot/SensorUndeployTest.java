package org.rtdroid.runtime.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.component.RealtimeService;
import org.rtdroid.runtime.sensor.InputEvents;
import org.rtdroid.runtime.sensor.sim.FifoInputRoot;
import org.rtdroid.runtime.sensor.sim.InputEventWriter;

/**
 * Undeploying an application whose component writes into its own sensor devices (the autopilot's
 * simulator, on a host whose devices are FIFOs): the devices stay open until the components have
 * stopped, so the component's last write finds its reader there, not EPIPE ("Broken pipe" logged as
 * a failure at every undeploy, hiding real ones).
 */
class SensorUndeployTest {
    private static final String MEM = "<memSizes total=\"16K\" persistent=\"8K\" release=\"8K\"/>";

    private RuntimeHost host;
    private FifoInputRoot devices;

    @AfterEach
    void tearDown() throws Exception {
        if (host != null) {
            host.shutdown();
        }
        if (devices != null) {
            devices.close();
        }
    }

    /** Opens the accelerometer's device for writing at start; writes a last frame as it stops. */
    public static final class Simulator extends RealtimeService {
        static volatile String device;
        static volatile String lastWrite;
        private InputEventWriter accelerometer;

        @Override
        public void onCreate() {
            // blocks until the sensors' polling thread has the FIFO open for reading
            accelerometer = InputEventWriter.open("accelerometer FIFO", device, InputEvents.ABS_X);
        }

        @Override
        public void onDestroy() {
            try {
                accelerometer.writeFrame(1, 2, 3);
                lastWrite = "written";
            } catch (IllegalStateException e) {
                lastWrite = e.getMessage();
            } finally {
                accelerometer.close();
            }
        }
    }

    @Test
    void aComponentStoppingAtUndeployStillWritesIntoTheSensorDevicesItFeeds() throws Exception {
        devices = FifoInputRoot.create("rtdroid-undeploy-");
        Simulator.device = devices.root().resolve("dev/input/event0").toString();
        Simulator.lastWrite = null;
        host = Apps.host();
        Apps.deploy(host, "sim", Apps.service(Simulator.class, 30, MEM, "")
                + "<sensors listeners=\"1\" queue=\"4\" strategy=\"bound\"/>");
        host.undeploy("sim");
        assertEquals("written", Simulator.lastWrite);
    }
}
