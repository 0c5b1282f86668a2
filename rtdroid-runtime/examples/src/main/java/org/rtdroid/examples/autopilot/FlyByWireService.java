package org.rtdroid.examples.autopilot;

import static org.rtdroid.examples.autopilot.AutopilotProtocol.*;

import org.rtdroid.contract.autopilot.Autopilot.SetMode;
import org.rtdroid.contract.autopilot.AutopilotCodec;
import org.rtdroid.logic.papabench.FlyByWire;
import org.rtdroid.logic.papabench.Task;
import org.rtdroid.runtime.channel.BroadcastPublisher;
import org.rtdroid.runtime.channel.MessageChannel;
import org.rtdroid.runtime.channel.MessageClosure;
import org.rtdroid.runtime.channel.MessagePublisher;
import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.component.PeriodicTask;
import org.rtdroid.runtime.component.RealtimeService;

/**
 * jPapaBench's fly-by-wire module, its four tasks on the {@link FlyByWire} laws (rtdroid-app-logic):
 * <ul>
 *   <li>{@code testPpm} (25 ms): the ground station's radio, a {@link SetMode} on cross-context
 *       channel {@code autopilot.control} (the AutopilotMonitor app or tools; each one a new radio
 *       request); a malformed one is refused and counted;</li>
 *   <li>{@code sendDataToAutopilot} (25 ms): the radio and the failsafe flag to the autopilot, an
 *       FBW_DATA broadcast on the SPI link ({@code autopilot.spi.to-autopilot});</li>
 *   <li>{@code checkFailsafe} (50 ms): the autopilot's commands still arriving;</li>
 *   <li>{@code checkMega128Values} (50 ms): the autopilot's newest COMMAND (its
 *       {@link SpiFromAutopilot} receiver put it in this module's register) applied to the servos,
 *       sent to the aircraft ({@code autopilot.servos}).</li>
 * </ul>
 * As in jPapaBench, fly-by-wire and autopilot share no state: only the link connects them. The
 * tasks share this module's; a release allocates nothing.
 */
public final class FlyByWireService extends RealtimeService {
    private final FlyByWire fbw = new FlyByWire();
    private MessageChannel control;
    private BroadcastPublisher toAutopilot;
    private volatile SendDataToAutopilot sendDataToAutopilot;
    private MessagePublisher servos;
    private volatile long radioRequests;
    private volatile long radioRefused;
    private volatile long refused;

    @Override
    public void onCreate() {
        SpiRegister.FBW.clear();
        control = messageChannel(SetMode.CHANNEL);
        toAutopilot = broadcastPublisher(TO_AUTOPILOT_CHANNEL);
        servos = messagePublisher(SERVOS_CHANNEL);
    }

    @Override
    public void onStartCommand() {
        registerTask(Task.TEST_PPM.taskName, new TestPpm());
        registerTask(Task.SEND_DATA_TO_AUTOPILOT.taskName, sendDataToAutopilot = new SendDataToAutopilot());
        registerTask(Task.CHECK_FAILSAFE.taskName, new CheckFailsafe());
        registerTask(Task.CHECK_MEGA128_VALUES.taskName, new CheckMega128Values());
    }

    private final class TestPpm extends PeriodicTask {
        private final RealtimeIntent request = new RealtimeIntent(SetMode.CHANNEL, SetMode.MAX_BYTES);
        private final SetMode setMode = new SetMode();
        private long seq;
        private int mode = org.rtdroid.logic.papabench.Autopilot.START_MODE;
        private double roll;
        private double pitch;
        private double throttle = org.rtdroid.logic.papabench.Autopilot.CRUISE_THROTTLE;

        @Override
        public void onRelease() {
            for (int i = 0; i < 4 && control.receive(request); i++) {
                if (request.hasAction(SetMode.ACTION_SET_MODE)
                        && setMode.decode(request.payload(), 0, request.payloadLength()) == AutopilotCodec.OK) {
                    seq++;
                    mode = setMode.mode();
                    roll = setMode.roll();
                    pitch = setMode.pitch();
                    throttle = setMode.throttle();
                    radioRequests++;
                } else {
                    radioRefused++;
                }
            }
            fbw.testPpm(seq, mode, roll, pitch, throttle);
        }
    }

    private final class SendDataToAutopilot extends SpiSender {
        SendDataToAutopilot() {
            super(toAutopilot);
        }

        @Override
        public void genMsg(RealtimeIntent m) {
            m.setAction(ACTION_FBW_DATA);
            m.putLong(FBW_SEQ_OFFSET, fbw.radioSeq());
            m.putInt(FBW_MODE_OFFSET, fbw.radioMode());
            m.putFloat(FBW_ROLL_OFFSET, (float) fbw.rollStick());
            m.putFloat(FBW_PITCH_OFFSET, (float) fbw.pitchStick());
            m.putFloat(FBW_THROTTLE_OFFSET, (float) fbw.throttleStick());
            m.putInt(FBW_FAILSAFE_OFFSET, fbw.failsafe() ? 1 : 0);
            m.setPayloadLength(FBW_DATA_BYTES);
        }
    }

    private final class CheckFailsafe extends PeriodicTask {
        @Override
        public void onRelease() {
            fbw.checkFailsafe();
        }
    }

    private final class CheckMega128Values extends PeriodicTask implements MessageClosure {
        private final double[] frame = new double[4];
        private long seen;

        @Override
        public void onRelease() {
            long frames = SpiRegister.FBW.read(frame);
            boolean arrived = frames != seen;
            seen = frames;
            fbw.checkMega128Values(arrived, (int) frame[0], frame[1], frame[2], frame[3]);
            if (!Links.send(servos, this)) {
                refused++;
            }
        }

        @Override
        public void genMsg(RealtimeIntent m) {
            m.setAction(ACTION_SERVOS);
            m.putFloat(SERVOS_AILERON_OFFSET, (float) fbw.aileron());
            m.putFloat(SERVOS_ELEVATOR_OFFSET, (float) fbw.elevator());
            m.putFloat(SERVOS_THROTTLE_OFFSET, (float) fbw.throttle());
            m.setPayloadLength(SERVOS_BYTES);
        }
    }

    public boolean failsafe() { return fbw.failsafe(); }
    /** The mode of the autopilot's last command. */
    public int mode() { return fbw.commandMode(); }
    /** SET_MODE requests taken from the ground station, and those refused (wrong action, not a SetMode). */
    public long radioRequests() { return radioRequests; }
    public long radioRefused() { return radioRefused; }
    /** Frames the channels refused (full) or reclaimed. */
    public long refused() { return refused + (sendDataToAutopilot == null ? 0 : sendDataToAutopilot.reclaimed()); }
}
