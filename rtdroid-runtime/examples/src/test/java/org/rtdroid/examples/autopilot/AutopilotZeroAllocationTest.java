package org.rtdroid.examples.autopilot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rtdroid.examples.autopilot.AutopilotProtocol.*;

import org.junit.jupiter.api.Test;
import org.rtdroid.contract.autopilot.Autopilot.Position;
import org.rtdroid.contract.autopilot.Autopilot.SetMode;
import org.rtdroid.contract.autopilot.AutopilotCodec;
import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.memory.HeapMeter;
import org.rtdroid.runtime.sensor.InputEvents;
import org.rtdroid.runtime.sensor.sim.InputEventWriter;
import org.rtdroid.runtime.xcc.CrossContextIntent;

/**
 * The autopilot's loops allocate nothing after warm-up: a tick of 10 simulated ms runs what the
 * three services' releases run (the aircraft step and its two input frames written through the
 * simulator's {@link InputEventWriter}, to /dev/null here; the stabilisation law at 25 ms;
 * command, navigation on the 250 ms fix and their records decoded and encoded in the channels'
 * holders, the cross-context ones through the app's contract), cycling through every mode. The channel, sensor and cross-context paths under them
 * are held to the same rule by the runtime's own tests (ZeroAllocationTest, SensorServiceTest).
 *
 * <p>Warm-up ends when a whole window allocates nothing (the JIT has compiled the paths); a later
 * one-off deoptimisation may still re-materialise an object once, so up to three windows are
 * measured and one must be clean. A real per-tick allocation shows in every window.
 */
class AutopilotZeroAllocationTest {
    static final int WINDOW = 200_000;
    static final int MAX_WARMUP_WINDOWS = 40;

    private final AutopilotLawsTest.Flight flight = new AutopilotLawsTest.Flight(MODE_AUTO2);
    private final RealtimeIntent command = new RealtimeIntent(COMMANDS_CHANNEL, COMMAND_BYTES);
    private final RealtimeIntent fix = new RealtimeIntent(GPS_CHANNEL, GPS_BYTES);
    private final CrossContextIntent position = new CrossContextIntent();
    private final Position record = new Position();
    private final SetMode request = new SetMode();
    private final byte[] setMode = new byte[SetMode.MAX_BYTES];
    private final int setModeLength = new SetMode().mode(MODE_AUTO1).roll(0.25f).throttle(0.5f).encode(setMode, 0);
    private InputEventWriter accelerometer;
    private InputEventWriter gyroscope;
    private long ticks;
    private double checksum;

    private void tick() {
        int ms = (int) (ticks % 1_000_000) * 10;
        if (ticks % 300_000 == 0) { // every mode in turn
            int mode = (int) (ticks / 300_000 % 4);
            flight.nav.setMode(mode, 0.1, -0.1, 0.5);
        }
        Aircraft a = flight.plane;
        // the simulator's GPS record, decoded by the autopilot
        fix.setAction(ACTION_GPS);
        fix.putFloat(GPS_EAST_OFFSET, (float) a.east()).putFloat(GPS_NORTH_OFFSET, (float) a.north())
                .putFloat(GPS_ALTITUDE_OFFSET, (float) a.altitude()).putFloat(GPS_COURSE_OFFSET, (float) a.headingDeg())
                .putFloat(GPS_SPEED_OFFSET, (float) a.groundSpeed()).putFloat(GPS_CLIMB_OFFSET, (float) a.climb())
                .setPayloadLength(GPS_BYTES);
        if (fix.hasAction(ACTION_GPS)) {
            checksum += fix.getFloat(GPS_EAST_OFFSET);
        }
        flight.tick(ms);
        // the autopilot's command record and position record, the fly-by-wire's decoding
        command.setAction(ACTION_COMMAND);
        command.putInt(COMMAND_MODE_OFFSET, flight.nav.commandMode()).putFloat(COMMAND_A_OFFSET, (float) flight.nav.commandA())
                .putFloat(COMMAND_B_OFFSET, (float) flight.nav.commandB())
                .putFloat(COMMAND_THROTTLE_OFFSET, (float) flight.nav.commandThrottle()).setPayloadLength(COMMAND_BYTES);
        if (command.hasAction(ACTION_COMMAND) && command.payloadLength() == COMMAND_BYTES) {
            checksum += command.getFloat(COMMAND_A_OFFSET) + command.getInt(COMMAND_MODE_OFFSET);
        }
        if (ms % 250 == 0) {
            // the contract's Position encoded into the outbound holder, and a SetMode decoded from one
            position.setAction(Position.ACTION_POSITION).setSender(SENDER).setSenderPriority(Position.PRIORITY);
            record.clear().fixes(flight.nav.fixes()).mode(flight.nav.mode()).waypoint(flight.nav.waypoint())
                    .east((float) flight.nav.east()).distance((float) flight.nav.distanceToTarget());
            position.setPayloadLength(record.encode(position.payload(), 0));
            if (request.decode(setMode, 0, setModeLength) == AutopilotCodec.OK) {
                checksum += request.mode() + request.throttle();
            }
        }
        // the simulator's two input frames
        accelerometer.writeFrame((int) Math.round(a.accelX() * InputEvents.ACCEL_UNITS_PER_MS2),
                (int) Math.round(a.accelY() * InputEvents.ACCEL_UNITS_PER_MS2),
                (int) Math.round(a.accelZ() * InputEvents.ACCEL_UNITS_PER_MS2));
        gyroscope.writeFrame((int) Math.round(a.gyroX() * InputEvents.GYRO_UNITS_PER_RADS),
                (int) Math.round(a.gyroY() * InputEvents.GYRO_UNITS_PER_RADS),
                (int) Math.round(a.gyroZ() * InputEvents.GYRO_UNITS_PER_RADS));
        ticks++;
    }

    private long window() {
        long start = HeapMeter.currentThreadAllocatedBytes();
        for (int i = 0; i < WINDOW; i++) {
            tick();
        }
        return HeapMeter.currentThreadAllocatedBytes() - start;
    }

    @Test
    void loopsAllocateNothingAfterWarmUp() {
        assertTrue(HeapMeter.supported(), "this JVM must measure per-thread allocation");
        accelerometer = InputEventWriter.open("accelerometer", "/dev/null", InputEvents.ABS_X);
        gyroscope = InputEventWriter.open("gyroscope", "/dev/null", InputEvents.ABS_RX);
        try {
            int warm = 0;
            while (window() != 0) {
                assertTrue(++warm < MAX_WARMUP_WINDOWS, "no allocation-free window within "
                        + MAX_WARMUP_WINDOWS * WINDOW + " warm-up ticks");
            }
            StringBuilder windows = new StringBuilder();
            long bytes = -1;
            for (int w = 0; w < 3 && bytes != 0; w++) {
                bytes = window();
                windows.append(w == 0 ? "" : ", ").append(bytes);
            }
            assertEquals(0, bytes, "bytes allocated over windows of " + WINDOW + " ticks: " + windows);
            assertTrue(checksum != 0 && flight.nav.fixes() > 0);
        } finally {
            accelerometer.close();
            gyroscope.close();
        }
    }
}
