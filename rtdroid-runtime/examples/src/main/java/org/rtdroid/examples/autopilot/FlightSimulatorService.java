package org.rtdroid.examples.autopilot;

import static org.rtdroid.examples.autopilot.AutopilotProtocol.*;

import java.nio.file.Path;
import org.rtdroid.logic.papabench.Aircraft;
import org.rtdroid.logic.papabench.Autopilot;
import org.rtdroid.logic.papabench.Task;
import org.rtdroid.runtime.channel.MessageChannel;
import org.rtdroid.runtime.channel.MessageClosure;
import org.rtdroid.runtime.channel.MessagePublisher;
import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.component.PeriodicTask;
import org.rtdroid.runtime.component.RealtimeService;
import org.rtdroid.runtime.sensor.InputDeviceLocator;
import org.rtdroid.runtime.sensor.InputEvents;
import org.rtdroid.runtime.sensor.Sensor;
import org.rtdroid.runtime.sensor.sim.InputEventWriter;
import org.rtdroid.runtime.sensor.sim.UinputDevice;

/**
 * jPapaBench's simulator module, as the dissertation ran it (3.8.3.2): its tasks at the highest of
 * the app's rate-monotonic priorities, feeding "simulated sensor data into an intermediate buffer"
 * the RT SensorManager's polling thread reads:
 * <ul>
 *   <li>{@code flightModel} (25 ms): the fly-by-wire's newest servo deflections
 *       ({@code autopilot.servos}), the {@link Aircraft} advanced by one period;</li>
 *   <li>{@code ir} (50 ms): the infrared attitude sensors, as one accelerometer and one gyroscope
 *       frame written into the sensor path's input devices (their kernel buffers are the
 *       intermediate buffer);</li>
 *   <li>{@code gps} (250 ms): a fix to the autopilot ({@code autopilot.gps}: the sensor path has
 *       no GPS device).</li>
 * </ul>
 * The devices are the ones the sensor path reads, found by name as it finds them: in the RT cell
 * the virtual accelerometer and gyroscope the RT cell agent made through {@code /dev/uinput} (the
 * frames are written into their {@code /dev/input/eventN}, which injects them as the devices' own
 * events); on a host without uinput, the FIFOs standing in for them under
 * {@link InputDeviceLocator#INPUT_ROOT_PROPERTY}. Where neither exists the service creates them
 * through {@code /dev/uinput} (closed, so destroyed, on undeploy). Opening them is set-up; a
 * release allocates nothing.
 */
public final class FlightSimulatorService extends RealtimeService {
    /** Where the aircraft starts: over home, 80 m up, heading north at 16 m/s (20 m below the flight plan). */
    public static final double START_ALTITUDE_M = 80;
    public static final double START_SPEED_MS = 16;
    /** Servo records flightModel takes per release at most (the manifest's subscriber count; the newest counts). */
    static final int SERVOS_PER_RELEASE = 30;

    private final Aircraft aircraft = new Aircraft(0, 0, START_ALTITUDE_M, 0, START_SPEED_MS);
    private MessageChannel servos;
    private MessagePublisher gps;
    private InputEventWriter accelerometer;
    private InputEventWriter gyroscope;
    // the aircraft's state, read by the ir and gps tasks (written by flightModel)
    private volatile double east;
    private volatile double north;
    private volatile double altitude;
    private volatile double heading;
    private volatile double groundSpeed;
    private volatile double climb;
    private volatile double accelX;
    private volatile double accelY;
    private volatile double accelZ;
    private volatile double gyroX;
    private volatile double gyroY;
    private volatile double gyroZ;
    private volatile long steps;
    private volatile long refused;

    @Override
    public void onCreate() {
        servos = messageChannel(SERVOS_CHANNEL);
        gps = messagePublisher(GPS_CHANNEL);
        publish();
    }

    @Override
    public void onStartCommand() {
        accelerometer = device(Sensor.ACCELEROMETER_DEVICE, InputEvents.ABS_X);
        gyroscope = device(Sensor.GYROSCOPE_DEVICE, InputEvents.ABS_RX);
        registerTask(Task.FLIGHT_MODEL.taskName, new FlightModel());
        registerTask(Task.IR.taskName, new Ir());
        registerTask(Task.GPS.taskName, new Gps());
    }

    /**
     * The input device named {@code name}, opened for writing where it exists (the RT cell agent's
     * uinput device, whose /dev/input/eventN takes injected events; a FIFO on a host), else
     * created through /dev/uinput.
     */
    private static InputEventWriter device(String name, int firstAxisCode) {
        Path p = InputDeviceLocator.byName(name).locate();
        if (p != null) {
            return InputEventWriter.open(name + " " + p, p.toString(), firstAxisCode);
        }
        return firstAxisCode == InputEvents.ABS_X ? UinputDevice.accelerometer() : UinputDevice.gyroscope();
    }

    @Override
    public void onDestroy() {
        if (accelerometer != null) {
            accelerometer.close();
        }
        if (gyroscope != null) {
            gyroscope.close();
        }
    }

    /** The aircraft's state for the sensor tasks (one writer: flightModel). */
    private void publish() {
        east = aircraft.east();
        north = aircraft.north();
        altitude = aircraft.altitude();
        heading = aircraft.headingDeg();
        groundSpeed = aircraft.groundSpeed();
        climb = aircraft.climb();
        accelX = aircraft.accelX();
        accelY = aircraft.accelY();
        accelZ = aircraft.accelZ();
        gyroX = aircraft.gyroX();
        gyroY = aircraft.gyroY();
        gyroZ = aircraft.gyroZ();
    }

    private final class FlightModel extends PeriodicTask {
        private final RealtimeIntent servo = new RealtimeIntent(SERVOS_CHANNEL, SERVOS_BYTES);
        private double aileron;
        private double elevator;
        private double throttle = Autopilot.CRUISE_THROTTLE;

        @Override
        public void onRelease() {
            for (int i = 0; i < SERVOS_PER_RELEASE && servos.receive(servo); i++) {
                if (servo.hasAction(ACTION_SERVOS) && servo.payloadLength() == SERVOS_BYTES) {
                    aileron = servo.getFloat(SERVOS_AILERON_OFFSET);
                    elevator = servo.getFloat(SERVOS_ELEVATOR_OFFSET);
                    throttle = servo.getFloat(SERVOS_THROTTLE_OFFSET);
                }
            }
            aircraft.step(periodNanos() * 1e-9, aileron, elevator, throttle);
            publish();
            steps++;
        }
    }

    private final class Ir extends PeriodicTask {
        @Override
        public void onRelease() {
            accelerometer.writeFrame(units(accelX, InputEvents.ACCEL_UNITS_PER_MS2),
                    units(accelY, InputEvents.ACCEL_UNITS_PER_MS2), units(accelZ, InputEvents.ACCEL_UNITS_PER_MS2));
            gyroscope.writeFrame(units(gyroX, InputEvents.GYRO_UNITS_PER_RADS),
                    units(gyroY, InputEvents.GYRO_UNITS_PER_RADS), units(gyroZ, InputEvents.GYRO_UNITS_PER_RADS));
        }
    }

    private final class Gps extends PeriodicTask implements MessageClosure {
        @Override
        public void onRelease() {
            if (!Links.send(gps, this)) {
                refused++;
            }
        }

        @Override
        public void genMsg(RealtimeIntent m) {
            m.setAction(ACTION_GPS);
            m.putFloat(GPS_EAST_OFFSET, (float) east);
            m.putFloat(GPS_NORTH_OFFSET, (float) north);
            m.putFloat(GPS_ALTITUDE_OFFSET, (float) altitude);
            m.putFloat(GPS_COURSE_OFFSET, (float) heading);
            m.putFloat(GPS_SPEED_OFFSET, (float) groundSpeed);
            m.putFloat(GPS_CLIMB_OFFSET, (float) climb);
            m.setPayloadLength(GPS_BYTES);
        }
    }

    private static int units(double si, int unitsPerSi) {
        return (int) Math.round(si * unitsPerSi);
    }

    /** The aircraft's position after the last step (m east, north of home; altitude). */
    public double east() { return east; }
    public double north() { return north; }
    public double altitude() { return altitude; }
    /** Simulation steps (25 ms each) so far. */
    public long steps() { return steps; }
    /** GPS fixes the channel refused (full). */
    public long refused() { return refused; }
}
