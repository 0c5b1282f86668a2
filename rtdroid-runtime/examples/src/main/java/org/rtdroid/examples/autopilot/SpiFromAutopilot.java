package org.rtdroid.examples.autopilot;

import static org.rtdroid.examples.autopilot.AutopilotProtocol.*;

import org.rtdroid.runtime.channel.RealtimeIntent;

/**
 * The fly-by-wire's end of the SPI link: receives the autopilot's COMMAND broadcast (every 50 ms)
 * and puts it in the fly-by-wire's register, where CheckMega128Values takes it. A malformed
 * frame is counted and dropped.
 */
public final class SpiFromAutopilot extends SpiReceiver {
    public SpiFromAutopilot() {
        super(ACTION_COMMAND, COMMAND_BYTES);
    }

    @Override
    void store(RealtimeIntent frame) {
        SpiRegister.FBW.write(frame.getInt(COMMAND_MODE_OFFSET), frame.getFloat(COMMAND_AILERON_OFFSET),
                frame.getFloat(COMMAND_ELEVATOR_OFFSET), frame.getFloat(COMMAND_THROTTLE_OFFSET), 0, 0);
    }
}
