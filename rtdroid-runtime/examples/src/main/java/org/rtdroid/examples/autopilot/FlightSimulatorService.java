package org.rtdroid.examples.autopilot;

import static org.rtdroid.examples.autopilot.AutopilotProtocol.*;

import java.nio.file.Path;
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
 * jPapaBench's simulator module, as the dissertation ran it (3.8.3.2): a periodic task of the
 * application (at the highest of its rate-monotonic priorities) that "feeds simulated sensor
 * data into an intermediate buffer" the RT SensorManager's polling thread reads. Every 10 ms its {@code simulation} task
 * takes the fly-by-wire's newest servo deflections ({@code autopilot.servos}), advances the
 * {@link Aircraft} by one period and writes one accelerometer and one gyroscope frame into the
 * sensor path's input devices through the sensor simulator's {@link InputEventWriter} (100 Hz, the
 * rate of the fall detection's sensors); every 25th release (250 ms) it sends a GPS fix to the
 * autopilot ({@code autopilot.gps}: the sensor path has no GPS device).
 *
 * <p>The devices are the ones the sensor path reads, found by name as it finds them: in the RT
 * cell the virtual accelerometer and gyroscope the RT cell agent made through {@code /dev/uinput}
 * (the frames are written into their {@code /dev/input/eventN}, which injects them as the devices'
 * own events); on a host without uinput, the FIFOs standing in for them under
 * {@link InputDeviceLocator#INPUT_ROOT_PROPERTY}. Where neither exists the service creates them
 * through {@code /dev/uinput} (closed, so destroyed, on undeploy). Opening them is set-up; a
 * release allocates nothing.
 */
public final class FlightSimulatorService extends RealtimeService {
    /** Where the aircraft starts: over home, 80 m up, heading north at 16 m/s (20 m below the flight plan). */
    public static final double START_ALTITUDE_M = 80;
    public static final double START_SPEED_MS = 16;
    /** A GPS fix every this many releases (250 ms). */
    public static final int GPS_EVERY_RELEASES = 25;

    private final Aircraft aircraft = new Aircraft(0, 0, START_ALTITUDE_M, 0, START_SPEED_MS);
    private final RealtimeIntent servo = new RealtimeIntent(SERVOS_CHANNEL, SERVOS_BYTES);
    private MessageChannel servos;
    private MessagePublisher gps;
    private InputEventWriter accelerometer;
    private InputEventWriter gyroscope;
    private volatile double east;
    private volatile double north;
    private volatile double altitude;
    private volatile long steps;
    private volatile long refused;

    @Override
    public void onCreate() {
        servos = messageChannel(SERVOS_CHANNEL);
        gps = messagePublisher(GPS_CHANNEL);
    }

    @Override
    public void onStartCommand() {
        accelerometer = device(Sensor.ACCELEROMETER_DEVICE, InputEvents.ABS_X);
        gyroscope = device(Sensor.GYROSCOPE_DEVICE, InputEvents.ABS_RX);
        registerTask("simulation", new Simulation());
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

    private final class Simulation extends PeriodicTask {
        private double aileron;
        private double elevator;
        private double throttle = Navigator.CRUISE_THROTTLE;
        private final MessageClosure fix = m -> {
            m.setAction(ACTION_GPS);
            m.putFloat(GPS_EAST_OFFSET, (float) aircraft.east());
            m.putFloat(GPS_NORTH_OFFSET, (float) aircraft.north());
            m.putFloat(GPS_ALTITUDE_OFFSET, (float) aircraft.altitude());
            m.putFloat(GPS_COURSE_OFFSET, (float) aircraft.headingDeg());
            m.putFloat(GPS_SPEED_OFFSET, (float) aircraft.groundSpeed());
            m.putFloat(GPS_CLIMB_OFFSET, (float) aircraft.climb());
            m.setPayloadLength(GPS_BYTES);
        };

        @Override
        public void onRelease() {
            for (int i = 0; i < 2 && servos.receive(servo); i++) {
                if (servo.hasAction(ACTION_SERVOS) && servo.payloadLength() == SERVOS_BYTES) {
                    aileron = servo.getFloat(SERVOS_AILERON_OFFSET);
                    elevator = servo.getFloat(SERVOS_ELEVATOR_OFFSET);
                    throttle = servo.getFloat(SERVOS_THROTTLE_OFFSET);
                }
            }
            aircraft.step(periodNanos() * 1e-9, aileron, elevator, throttle);
            accelerometer.writeFrame(units(aircraft.accelX(), InputEvents.ACCEL_UNITS_PER_MS2),
                    units(aircraft.accelY(), InputEvents.ACCEL_UNITS_PER_MS2),
                    units(aircraft.accelZ(), InputEvents.ACCEL_UNITS_PER_MS2));
            gyroscope.writeFrame(units(aircraft.gyroX(), InputEvents.GYRO_UNITS_PER_RADS),
                    units(aircraft.gyroY(), InputEvents.GYRO_UNITS_PER_RADS),
                    units(aircraft.gyroZ(), InputEvents.GYRO_UNITS_PER_RADS));
            east = aircraft.east();
            north = aircraft.north();
            altitude = aircraft.altitude();
            steps++;
            if (steps % GPS_EVERY_RELEASES == 1) {
                if (!Links.send(gps, fix)) {
                    refused++;
                }
            }
        }
    }

    private static int units(double si, int unitsPerSi) {
        return (int) Math.round(si * unitsPerSi);
    }

    /** The aircraft's position after the last step (m east, north of home; altitude). */
    public double east() { return east; }
    public double north() { return north; }
    public double altitude() { return altitude; }
    /** Simulation steps (10 ms each) so far. */
    public long steps() { return steps; }
    /** GPS fixes the channel refused (full). */
    public long refused() { return refused; }
}
