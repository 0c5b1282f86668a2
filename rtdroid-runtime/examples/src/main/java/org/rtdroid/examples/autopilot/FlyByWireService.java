package org.rtdroid.examples.autopilot;

import static org.rtdroid.examples.autopilot.AutopilotProtocol.*;

import org.rtdroid.runtime.channel.MessageChannel;
import org.rtdroid.runtime.channel.MessageClosure;
import org.rtdroid.runtime.channel.MessagePublisher;
import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.component.PeriodicTask;
import org.rtdroid.runtime.component.RealtimeService;
import org.rtdroid.runtime.sensor.Sensor;
import org.rtdroid.runtime.sensor.SensorEvent;
import org.rtdroid.runtime.sensor.SensorEventListener;
import org.rtdroid.runtime.sensor.SensorManager;

/**
 * jPapaBench's fly-by-wire, the service nearest the servos: it listens to the
 * orientation sensor (roll and pitch, fused from accelerometer and gyroscope) and the gyroscope
 * (their rates) through the RT SensorManager, and every 25 ms its {@code stabilisation} task takes
 * the autopilot's newest command from {@code autopilot.commands}, runs the {@link Stabiliser} and
 * sends the servo deflections to the aircraft ({@code autopilot.servos}) and its status up to the
 * autopilot ({@code autopilot.fbw-status}). As in jPapaBench, fly-by-wire and autopilot share no
 * state: only these channels connect them.
 *
 * <p>Registration happens at start (it allocates); the listeners store the newest angles in
 * fields and a release allocates nothing.
 */
public final class FlyByWireService extends RealtimeService implements SensorEventListener {
    private final Stabiliser stabiliser = new Stabiliser();
    private final RealtimeIntent command = new RealtimeIntent(COMMANDS_CHANNEL, COMMAND_BYTES);
    private MessageChannel commands;
    private MessagePublisher servos;
    private MessagePublisher status;
    private SensorManager sensors;
    // Newest measurements (written by the sensor lanes, read by the stabilisation task).
    private volatile float roll;
    private volatile float pitch;
    private volatile float rollRate;
    private volatile float pitchRate;
    private volatile long attitudeEvents;
    private volatile long refused;

    @Override
    public void onCreate() {
        commands = messageChannel(COMMANDS_CHANNEL);
        servos = messagePublisher(SERVOS_CHANNEL);
        status = messagePublisher(FBW_STATUS_CHANNEL);
    }

    @Override
    public void onStartCommand() {
        sensors = sensorManager();
        sensors.registerListener(this, sensors.getDefaultSensor(Sensor.TYPE_ORIENTATION), SensorManager.SENSOR_DELAY_FASTEST);
        sensors.registerListener(this, sensors.getDefaultSensor(Sensor.TYPE_GYROSCOPE), SensorManager.SENSOR_DELAY_FASTEST);
        registerTask("stabilisation", new Stabilisation());
    }

    @Override
    public void onDestroy() {
        if (sensors != null) {
            sensors.unregisterListener(this);
        }
    }

    @Override
    public void onSensorChanged(SensorEvent e) {
        if (e.sensor.getType() == Sensor.TYPE_ORIENTATION) {
            pitch = e.values[1];
            roll = e.values[2];
            attitudeEvents++;
        } else {
            rollRate = (float) Math.toDegrees(e.values[0]);
            pitchRate = (float) Math.toDegrees(e.values[1]);
        }
    }

    private final class Stabilisation extends PeriodicTask {
        private final MessageClosure servoCommand = m -> {
            m.setAction(ACTION_SERVOS);
            m.putFloat(SERVOS_AILERON_OFFSET, (float) stabiliser.aileron());
            m.putFloat(SERVOS_ELEVATOR_OFFSET, (float) stabiliser.elevator());
            m.putFloat(SERVOS_THROTTLE_OFFSET, (float) stabiliser.throttle());
            m.setPayloadLength(SERVOS_BYTES);
        };
        private final MessageClosure fbwStatus = m -> {
            m.setAction(ACTION_FBW_STATUS);
            m.putFloat(FBW_ROLL_OFFSET, roll);
            m.putFloat(FBW_PITCH_OFFSET, pitch);
            m.putFloat(FBW_AILERON_OFFSET, (float) stabiliser.aileron());
            m.putFloat(FBW_ELEVATOR_OFFSET, (float) stabiliser.elevator());
            m.putFloat(FBW_THROTTLE_OFFSET, (float) stabiliser.throttle());
            m.putInt(FBW_FAILSAFE_OFFSET, stabiliser.failsafe() ? 1 : 0);
            m.setPayloadLength(FBW_STATUS_BYTES);
        };

        @Override
        public void onRelease() {
            // The newest of the commands waiting (the manifest's subscriber count bounds them).
            for (int i = 0; i < 4 && commands.receive(command); i++) {
                if (command.hasAction(ACTION_COMMAND) && command.payloadLength() == COMMAND_BYTES) {
                    stabiliser.command(command.getInt(COMMAND_MODE_OFFSET), command.getFloat(COMMAND_A_OFFSET),
                            command.getFloat(COMMAND_B_OFFSET), command.getFloat(COMMAND_THROTTLE_OFFSET));
                }
            }
            stabiliser.step(roll, pitch, rollRate, pitchRate);
            if (!Links.send(servos, servoCommand)) {
                refused++;
            }
            if (!Links.send(status, fbwStatus)) {
                refused++;
            }
        }
    }

    public boolean failsafe() { return stabiliser.failsafe(); }
    public int mode() { return stabiliser.mode(); }
    public float roll() { return roll; }
    public float pitch() { return pitch; }
    /** Orientation events received. */
    public long attitudeEvents() { return attitudeEvents; }
    /** Servo commands or status records the channels refused (full). */
    public long refused() { return refused; }
}
