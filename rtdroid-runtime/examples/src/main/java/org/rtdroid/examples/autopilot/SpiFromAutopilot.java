package org.rtdroid.examples.autopilot;

import static org.rtdroid.examples.autopilot.AutopilotProtocol.*;

import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.component.RealtimeReceiver;

/**
 * The fly-by-wire's end of the SPI link: receives the autopilot's COMMAND broadcast (every 50 ms)
 * and puts it in the fly-by-wire's register, where CheckMega128Values takes it. A malformed
 * frame is counted and dropped.
 */
public final class SpiFromAutopilot extends RealtimeReceiver {
    private volatile long malformed;

    @Override
    public void onReceive(RealtimeIntent intent) {
        if (!intent.hasAction(ACTION_COMMAND) || intent.payloadLength() != COMMAND_BYTES) {
            malformed++;
            return;
        }
        SpiRegister.FBW.write(intent.getInt(COMMAND_MODE_OFFSET), intent.getFloat(COMMAND_AILERON_OFFSET),
                intent.getFloat(COMMAND_ELEVATOR_OFFSET), intent.getFloat(COMMAND_THROTTLE_OFFSET), 0, 0);
    }

    public long malformed() { return malformed; }
}
