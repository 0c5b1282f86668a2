package org.rtdroid.examples.autopilot;

import static org.rtdroid.examples.autopilot.AutopilotProtocol.*;

import org.rtdroid.contract.autopilot.Autopilot.Position;
import org.rtdroid.contract.autopilot.Autopilot.SetMode;
import org.rtdroid.contract.autopilot.AutopilotCodec;
import org.rtdroid.runtime.channel.MessageChannel;
import org.rtdroid.runtime.channel.MessageClosure;
import org.rtdroid.runtime.channel.MessagePublisher;
import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.component.PeriodicTask;
import org.rtdroid.runtime.component.RealtimeService;
import org.rtdroid.runtime.xcc.CrossContextClosure;
import org.rtdroid.runtime.xcc.CrossContextIntent;
import org.rtdroid.runtime.xcc.CrossContextPublisher;

/**
 * jPapaBench's autopilot: one periodic task, {@code control}, every 50 ms (jPapaBench's
 * stabilisation and link-to-fly-by-wire period, the 50 ms deadline the dissertation measured):
 * <ol>
 *   <li>applies the ground station's SET_MODE requests (cross-context channel {@code autopilot.control});</li>
 *   <li>reads the fly-by-wire's status ({@code autopilot.fbw-status});</li>
 *   <li>on each GPS fix ({@code autopilot.gps}, every 250 ms: jPapaBench's GPS, navigation and
 *       altitude period) navigates and publishes position and mode to the Android cell
 *       ({@code autopilot.position}), as Paparazzi's autopilot runs its navigation when a fix arrives;</li>
 *   <li>sends the fly-by-wire its command ({@code autopilot.commands}).</li>
 * </ol>
 * One task rather than one per rate because the static analysis gives each of a component's
 * tasks all of the component's channel ends: a separate 250 ms navigation task would be charged
 * with the fly-by-wire's status it never reads. Every channel record is filled into a
 * pre-allocated slot; a release allocates nothing.
 */
public final class AutopilotService extends RealtimeService {
    /** Where the autopilot starts: flying the flight plan. */
    public static final int START_MODE = MODE_AUTO2;
    /** GPS fixes the task takes per release at most (the manifest's subscriber count; the newest counts). */
    static final int FIXES_PER_RELEASE = 5;

    private final Navigator navigator = new Navigator(START_MODE);
    private MessagePublisher commands;
    private MessageChannel fbwStatus;
    private MessageChannel gps;
    private MessageChannel control;
    private CrossContextPublisher position;
    private volatile boolean fbwFailsafe;
    private volatile long modeRequestsRefused;
    private volatile long refused;

    @Override
    public void onCreate() {
        commands = messagePublisher(COMMANDS_CHANNEL);
        fbwStatus = messageChannel(FBW_STATUS_CHANNEL);
        gps = messageChannel(GPS_CHANNEL);
        control = messageChannel(SetMode.CHANNEL);
        position = crossContextPublisher(Position.CHANNEL);
    }

    @Override
    public void onStartCommand() {
        registerTask("control", new Control());
    }

    private final class Control extends PeriodicTask implements MessageClosure, CrossContextClosure {
        private final RealtimeIntent request = new RealtimeIntent(SetMode.CHANNEL, SetMode.MAX_BYTES);
        private final SetMode setMode = new SetMode();
        private final Position record = new Position();
        private final RealtimeIntent status = new RealtimeIntent(FBW_STATUS_CHANNEL, FBW_STATUS_BYTES);
        private final RealtimeIntent fix = new RealtimeIntent(GPS_CHANNEL, GPS_BYTES);

        @Override
        public void onRelease() {
            for (int i = 0; i < 4 && control.receive(request); i++) {
                boolean ok = request.hasAction(SetMode.ACTION_SET_MODE)
                        && setMode.decode(request.payload(), 0, request.payloadLength()) == AutopilotCodec.OK
                        && navigator.setMode(setMode.mode(), setMode.roll(), setMode.pitch(), setMode.throttle());
                if (!ok) {
                    modeRequestsRefused++;
                }
            }
            for (int i = 0; i < 4 && fbwStatus.receive(status); i++) {
                if (status.hasAction(ACTION_FBW_STATUS) && status.payloadLength() == FBW_STATUS_BYTES) {
                    fbwFailsafe = status.getInt(FBW_FAILSAFE_OFFSET) != 0;
                }
            }
            boolean fresh = false;
            for (int i = 0; i < FIXES_PER_RELEASE && gps.receive(fix); i++) {
                fresh |= fix.hasAction(ACTION_GPS) && fix.payloadLength() == GPS_BYTES;
            }
            if (fresh) {
                navigator.navigate(fix.getFloat(GPS_EAST_OFFSET), fix.getFloat(GPS_NORTH_OFFSET),
                        fix.getFloat(GPS_ALTITUDE_OFFSET), fix.getFloat(GPS_COURSE_OFFSET),
                        fix.getFloat(GPS_SPEED_OFFSET), fix.getFloat(GPS_CLIMB_OFFSET));
                if (position.publish(this) != CrossContextPublisher.PUBLISHED) {
                    refused++;
                }
            }
            navigator.control();
            if (!Links.send(commands, this)) {
                refused++;
            }
        }

        /** Fills the COMMAND record. */
        @Override
        public void genMsg(RealtimeIntent m) {
            m.setAction(ACTION_COMMAND);
            m.putInt(COMMAND_MODE_OFFSET, navigator.commandMode());
            m.putFloat(COMMAND_A_OFFSET, (float) navigator.commandA());
            m.putFloat(COMMAND_B_OFFSET, (float) navigator.commandB());
            m.putFloat(COMMAND_THROTTLE_OFFSET, (float) navigator.commandThrottle());
            m.setPayloadLength(COMMAND_BYTES);
        }

        /** Fills the POSITION (the app's contract, bridge/contracts/autopilot.proto). */
        @Override
        public void genMsg(CrossContextIntent out) {
            out.setAction(Position.ACTION_POSITION);
            out.setSender(SENDER);
            out.setSenderPriority(Position.PRIORITY);
            record.clear().fixes(navigator.fixes()).mode(navigator.mode()).waypoint(navigator.waypoint())
                    .east((float) navigator.east()).north((float) navigator.north())
                    .altitude((float) navigator.altitude()).course((float) navigator.course())
                    .speed((float) navigator.speed()).distance((float) navigator.distanceToTarget());
            out.setPayloadLength(record.encode(out.payload(), 0)); // at most Position.MAX_BYTES (58): cannot fail
        }
    }

    public int mode() { return navigator.mode(); }
    public int waypointsReached() { return navigator.waypointsReached(); }
    public long fixes() { return navigator.fixes(); }
    /** Whether the fly-by-wire's last status said it lost the autopilot's commands. */
    public boolean fbwFailsafe() { return fbwFailsafe; }
    /** SET_MODE requests refused (wrong action, not a SetMode, mode or stick out of range). */
    public long modeRequestsRefused() { return modeRequestsRefused; }
    /** Commands or position records the channels refused (full). */
    public long refused() { return refused; }
}
