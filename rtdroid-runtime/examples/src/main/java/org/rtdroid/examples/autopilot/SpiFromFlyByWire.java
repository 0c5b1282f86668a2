package org.rtdroid.examples.autopilot;

import static org.rtdroid.examples.autopilot.AutopilotProtocol.*;

import org.rtdroid.runtime.channel.RealtimeIntent;

/**
 * The autopilot's end of the SPI link: receives the fly-by-wire's FBW_DATA broadcast (every 25 ms:
 * the radio and the failsafe flag) and puts it in the autopilot's register, where RadioControl
 * takes it. A malformed frame is counted and dropped.
 */
public final class SpiFromFlyByWire extends SpiReceiver {
    public SpiFromFlyByWire() {
        super(ACTION_FBW_DATA, FBW_DATA_BYTES);
    }

    @Override
    void store(RealtimeIntent frame) {
        SpiRegister.AUTOPILOT.write(frame.getLong(FBW_SEQ_OFFSET), frame.getInt(FBW_MODE_OFFSET),
                frame.getFloat(FBW_ROLL_OFFSET), frame.getFloat(FBW_PITCH_OFFSET), frame.getFloat(FBW_THROTTLE_OFFSET),
                frame.getInt(FBW_FAILSAFE_OFFSET));
    }
}
