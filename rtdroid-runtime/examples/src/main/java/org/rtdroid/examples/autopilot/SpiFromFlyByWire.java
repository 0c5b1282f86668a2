package org.rtdroid.examples.autopilot;

import static org.rtdroid.examples.autopilot.AutopilotProtocol.*;

import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.component.RealtimeReceiver;

/**
 * The autopilot's end of the SPI link: receives the fly-by-wire's FBW_DATA broadcast (every 25 ms:
 * the radio and the failsafe flag) and puts it in the autopilot's register, where RadioControl
 * takes it. A malformed frame is counted and dropped.
 */
public final class SpiFromFlyByWire extends RealtimeReceiver {
    private volatile long malformed;

    @Override
    public void onReceive(RealtimeIntent intent) {
        if (!intent.hasAction(ACTION_FBW_DATA) || intent.payloadLength() != FBW_DATA_BYTES) {
            malformed++;
            return;
        }
        SpiRegister.AUTOPILOT.write(intent.getLong(FBW_SEQ_OFFSET), intent.getInt(FBW_MODE_OFFSET),
                intent.getFloat(FBW_ROLL_OFFSET), intent.getFloat(FBW_PITCH_OFFSET), intent.getFloat(FBW_THROTTLE_OFFSET),
                intent.getInt(FBW_FAILSAFE_OFFSET));
    }

    public long malformed() { return malformed; }
}
