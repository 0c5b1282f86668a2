package org.rtdroid.examples.autopilot;

import static org.rtdroid.examples.autopilot.AutopilotProtocol.*;

import org.rtdroid.contract.autopilot.Autopilot.Position;
import org.rtdroid.logic.papabench.Autopilot;
import org.rtdroid.logic.papabench.Task;
import org.rtdroid.runtime.channel.BroadcastPublisher;
import org.rtdroid.runtime.channel.MessageChannel;
import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.component.PeriodicTask;
import org.rtdroid.runtime.component.RealtimeService;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.sensor.Sensor;
import org.rtdroid.runtime.sensor.SensorEvent;
import org.rtdroid.runtime.sensor.SensorEventListener;
import org.rtdroid.runtime.sensor.SensorManager;
import org.rtdroid.runtime.xcc.CrossContextClosure;
import org.rtdroid.runtime.xcc.CrossContextIntent;
import org.rtdroid.runtime.xcc.CrossContextPublisher;

/**
 * jPapaBench's autopilot module, its seven tasks on the {@link Autopilot} laws (rtdroid-app-logic):
 * {@code radioControl} (25 ms: the radio and failsafe flag the fly-by-wire's FBW_DATA broadcast
 * left in this module's register, {@link SpiFromFlyByWire}), {@code stabilization} (50 ms: the
 * attitude, from the infrared sensors through the RT SensorManager, held to the set-points),
 * {@code linkFbwSend} (50 ms: the COMMAND broadcast to the fly-by-wire on the SPI link),
 * {@code reporting} (100 ms: the POSITION to the Android cell, the app's contract),
 * {@code navigation} (250 ms: the newest GPS fix, the flight plan, the course), {@code altitudeControl}
 * and {@code climbControl} (250 ms). The attitude arrives as sensor events (orientation: roll and
 * pitch fused from the accelerometer; gyroscope: their rates) which the listener keeps for the
 * next stabilization, with the last {@link #SENSOR_LOG} orientation deliveries' times (the frame's
 * write, its read by the polling thread, the listener's start: Figs. 3.20-3.23).
 *
 * <p>Registration happens at start (it allocates); a release or a sensor event allocates nothing.
 */
public final class AutopilotService extends RealtimeService implements SensorEventListener {
    /** Orientation deliveries whose times are kept (a ring). */
    public static final int SENSOR_LOG = 8192;
    /** GPS fixes navigation takes per release at most (the manifest's subscriber count; the newest counts). */
    static final int FIXES_PER_RELEASE = 16;

    private final Autopilot autopilot = new Autopilot();
    private BroadcastPublisher toFbw;
    private volatile LinkFbwSend linkFbwSend;
    private MessageChannel gps;
    private CrossContextPublisher position;
    private SensorManager sensors;
    private volatile float rollRate;
    private volatile float pitchRate;
    private final long[] sensorLog = new long[3 * SENSOR_LOG];
    private volatile long sensorLogged;
    private volatile long refused;

    @Override
    public void onCreate() {
        SpiRegister.AUTOPILOT.clear();
        toFbw = broadcastPublisher(TO_FBW_CHANNEL);
        gps = messageChannel(GPS_CHANNEL);
        position = crossContextPublisher(Position.CHANNEL);
    }

    @Override
    public void onStartCommand() {
        sensors = sensorManager();
        sensors.registerListener(this, sensors.getDefaultSensor(Sensor.TYPE_ORIENTATION), SensorManager.SENSOR_DELAY_FASTEST);
        sensors.registerListener(this, sensors.getDefaultSensor(Sensor.TYPE_GYROSCOPE), SensorManager.SENSOR_DELAY_FASTEST);
        registerTask(Task.RADIO_CONTROL.taskName, new RadioControl());
        registerTask(Task.STABILIZATION.taskName, new Stabilization());
        registerTask(Task.LINK_FBW_SEND.taskName, linkFbwSend = new LinkFbwSend());
        registerTask(Task.REPORTING.taskName, new Reporting());
        registerTask(Task.NAVIGATION.taskName, new Navigation());
        registerTask(Task.ALTITUDE_CONTROL.taskName, new AltitudeControl());
        registerTask(Task.CLIMB_CONTROL.taskName, new ClimbControl());
    }

    @Override
    public void onDestroy() {
        if (sensors != null) {
            sensors.unregisterListener(this);
        }
    }

    @Override
    public void onSensorChanged(SensorEvent e) {
        long start = Linux.monotonicNanos();
        if (e.sensor.getType() == Sensor.TYPE_ORIENTATION) {
            autopilot.attitude(e.values[2], e.values[1], rollRate, pitchRate);
            long n = sensorLogged;
            int at = (int) (n % SENSOR_LOG) * 3;
            sensorLog[at] = e.timestamp;
            sensorLog[at + 1] = e.readNanos;
            sensorLog[at + 2] = start;
            sensorLogged = n + 1;
        } else {
            rollRate = (float) Math.toDegrees(e.values[0]);
            pitchRate = (float) Math.toDegrees(e.values[1]);
        }
    }

    private final class RadioControl extends PeriodicTask {
        private final double[] frame = new double[6];

        @Override
        public void onRelease() {
            if (SpiRegister.AUTOPILOT.read(frame) > 0) {
                autopilot.radioControl((long) frame[0], (int) frame[1], frame[2], frame[3], frame[4], frame[5] != 0);
            }
        }
    }

    private final class Stabilization extends PeriodicTask {
        @Override
        public void onRelease() {
            autopilot.stabilization();
        }
    }

    private final class LinkFbwSend extends SpiSender {
        LinkFbwSend() {
            super(toFbw);
        }

        @Override
        public void genMsg(RealtimeIntent m) {
            m.setAction(ACTION_COMMAND);
            m.putInt(COMMAND_MODE_OFFSET, autopilot.commandMode());
            m.putFloat(COMMAND_AILERON_OFFSET, (float) autopilot.aileron());
            m.putFloat(COMMAND_ELEVATOR_OFFSET, (float) autopilot.elevator());
            m.putFloat(COMMAND_THROTTLE_OFFSET, (float) autopilot.throttle());
            m.setPayloadLength(COMMAND_BYTES);
        }
    }

    private final class Reporting extends PeriodicTask implements CrossContextClosure {
        private final Position record = new Position();

        @Override
        public void onRelease() {
            if (position.publish(this) != CrossContextPublisher.PUBLISHED) {
                refused++;
            }
        }

        /** Fills the POSITION (the app's contract, bridge/contracts/autopilot.proto). */
        @Override
        public void genMsg(CrossContextIntent out) {
            out.setAction(Position.ACTION_POSITION);
            out.setSender(SENDER);
            out.setSenderPriority(Position.PRIORITY);
            record.clear().fixes(autopilot.fixes()).mode(autopilot.mode()).waypoint(autopilot.waypoint())
                    .east((float) autopilot.east()).north((float) autopilot.north())
                    .altitude((float) autopilot.altitude()).course((float) autopilot.course())
                    .speed((float) autopilot.speed()).distance((float) autopilot.distanceToTarget());
            out.setPayloadLength(record.encode(out.payload(), 0)); // at most Position.MAX_BYTES (58): cannot fail
        }
    }

    private final class Navigation extends PeriodicTask {
        private final RealtimeIntent fix = new RealtimeIntent(GPS_CHANNEL, GPS_BYTES);

        @Override
        public void onRelease() {
            boolean fresh = false;
            for (int i = 0; i < FIXES_PER_RELEASE && gps.receive(fix); i++) {
                fresh |= fix.hasAction(ACTION_GPS) && fix.payloadLength() == GPS_BYTES;
            }
            if (fresh) {
                autopilot.navigation(fix.getFloat(GPS_EAST_OFFSET), fix.getFloat(GPS_NORTH_OFFSET),
                        fix.getFloat(GPS_ALTITUDE_OFFSET), fix.getFloat(GPS_COURSE_OFFSET),
                        fix.getFloat(GPS_SPEED_OFFSET), fix.getFloat(GPS_CLIMB_OFFSET));
            }
        }
    }

    private final class AltitudeControl extends PeriodicTask {
        @Override
        public void onRelease() {
            autopilot.altitudeControl();
        }
    }

    private final class ClimbControl extends PeriodicTask {
        @Override
        public void onRelease() {
            autopilot.climbControl();
        }
    }

    public int mode() { return autopilot.mode(); }
    public int waypointsReached() { return autopilot.waypointsReached(); }
    public long fixes() { return autopilot.fixes(); }
    public double roll() { return autopilot.roll(); }
    public double pitch() { return autopilot.pitch(); }
    /** Orientation events received. */
    public long attitudeEvents() { return autopilot.attitudeSamples(); }
    /** Whether the fly-by-wire's last frame said it lost the autopilot's commands. */
    public boolean fbwFailsafe() { return autopilot.fbwFailsafe(); }
    /** Radio requests refused (an unknown mode, a stick out of range). */
    public long modeRequestsRefused() { return autopilot.modeRequestsRefused(); }
    /** Frames the channels refused (full) or reclaimed. */
    public long refused() { return refused + (linkFbwSend == null ? 0 : linkFbwSend.reclaimed()); }

    /** Orientation deliveries so far (the log keeps the last {@link #SENSOR_LOG}). */
    public long sensorDeliveries() { return sensorLogged; }

    /**
     * The times of orientation delivery {@code n} into {@code into}: the frame's write (its input
     * event's stamp), its read by the polling thread, the listener's start (CLOCK_MONOTONIC ns).
     *
     * @return false if it is not in the log (not yet, or overwritten)
     */
    public boolean sensorDelivery(long n, long[] into) {
        long logged = sensorLogged;
        if (n >= logged || n < logged - SENSOR_LOG + 1) {
            return false;
        }
        int at = (int) (n % SENSOR_LOG) * 3;
        into[0] = sensorLog[at];
        into[1] = sensorLog[at + 1];
        into[2] = sensorLog[at + 2];
        return true;
    }
}
