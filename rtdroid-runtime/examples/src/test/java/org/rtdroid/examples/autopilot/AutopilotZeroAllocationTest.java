package org.rtdroid.examples.autopilot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rtdroid.examples.autopilot.AutopilotProtocol.*;

import org.junit.jupiter.api.Test;
import org.rtdroid.contract.autopilot.Autopilot.Position;
import org.rtdroid.contract.autopilot.Autopilot.SetMode;
import org.rtdroid.contract.autopilot.AutopilotCodec;
import org.rtdroid.logic.papabench.Aircraft;
import org.rtdroid.logic.papabench.Autopilot;
import org.rtdroid.logic.papabench.FlyByWire;
import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.memory.HeapMeter;
import org.rtdroid.runtime.sensor.InputEvents;
import org.rtdroid.runtime.sensor.sim.InputEventWriter;
import org.rtdroid.runtime.xcc.CrossContextIntent;

/**
 * The autopilot's releases allocate nothing after warm-up: a tick of 25 simulated ms runs what the
 * 14 tasks' releases run in that time (the aircraft step; the infrared frames written through the
 * simulator's {@link InputEventWriter}, to /dev/null here; the fly-by-wire's and the autopilot's
 * laws; their SPI frames, servo and GPS records written and read in the channels' holders and the
 * SPI registers; the POSITION encoded and a SET_MODE decoded through the app's contract), cycling
 * through every mode. The channel, sensor and cross-context paths under them are held to the same
 * rule by the runtime's own tests (ZeroAllocationTest, SensorServiceTest).
 *
 * <p>Warm-up ends when a whole window allocates nothing (the JIT has compiled the paths); a later
 * one-off deoptimisation may still re-materialise an object once, so up to three windows are
 * measured and one must be clean. A real per-tick allocation shows in every window.
 */
class AutopilotZeroAllocationTest {
    static final int WINDOW = 200_000;
    static final int MAX_WARMUP_WINDOWS = 40;

    private final Aircraft plane = new Aircraft(0, 0, 80, 0, 16);
    private final Autopilot ap = new Autopilot();
    private final FlyByWire fbw = new FlyByWire();
    private final RealtimeIntent command = new RealtimeIntent(TO_FBW_CHANNEL, COMMAND_BYTES);
    private final RealtimeIntent data = new RealtimeIntent(TO_AUTOPILOT_CHANNEL, FBW_DATA_BYTES);
    private final RealtimeIntent fix = new RealtimeIntent(GPS_CHANNEL, GPS_BYTES);
    private final SpiRegister toFbw = new SpiRegister(4);
    private final SpiRegister toAutopilot = new SpiRegister(6);
    private final double[] frame = new double[6];
    private final CrossContextIntent position = new CrossContextIntent();
    private final Position record = new Position();
    private final SetMode request = new SetMode();
    private final byte[] setMode = new byte[SetMode.MAX_BYTES];
    private final int setModeLength = new SetMode().mode(MODE_AUTO1).roll(0.25f).throttle(0.5f).encode(setMode, 0);
    private InputEventWriter accelerometer;
    private InputEventWriter gyroscope;
    private long ticks;
    private long radioSeq;
    private double checksum;

    private void tick() {
        long ms = ticks * 25;
        if (ticks % 300_000 == 0) { // every mode in turn, through the radio
            radioSeq++;
        }
        plane.step(0.025, fbw.aileron(), fbw.elevator(), fbw.throttle());
        fbw.testPpm(radioSeq, (int) (radioSeq % 4), 0.1, -0.1, 0.5);
        // FBW_DATA through its holder and the autopilot's register
        data.setAction(ACTION_FBW_DATA);
        data.putLong(FBW_SEQ_OFFSET, fbw.radioSeq()).putInt(FBW_MODE_OFFSET, fbw.radioMode())
                .putFloat(FBW_ROLL_OFFSET, (float) fbw.rollStick()).putFloat(FBW_PITCH_OFFSET, (float) fbw.pitchStick())
                .putFloat(FBW_THROTTLE_OFFSET, (float) fbw.throttleStick()).putInt(FBW_FAILSAFE_OFFSET, fbw.failsafe() ? 1 : 0)
                .setPayloadLength(FBW_DATA_BYTES);
        toAutopilot.write(data.getLong(FBW_SEQ_OFFSET), data.getInt(FBW_MODE_OFFSET), data.getFloat(FBW_ROLL_OFFSET),
                data.getFloat(FBW_PITCH_OFFSET), data.getFloat(FBW_THROTTLE_OFFSET), data.getInt(FBW_FAILSAFE_OFFSET));
        toAutopilot.read(frame);
        ap.radioControl((long) frame[0], (int) frame[1], frame[2], frame[3], frame[4], frame[5] != 0);
        if (ms % 50 == 0) {
            ap.attitude(plane.rollDeg(), plane.pitchDeg(), plane.rollRateDegS(), plane.pitchRateDegS());
            accelerometer.writeFrame((int) Math.round(plane.accelX() * InputEvents.ACCEL_UNITS_PER_MS2),
                    (int) Math.round(plane.accelY() * InputEvents.ACCEL_UNITS_PER_MS2),
                    (int) Math.round(plane.accelZ() * InputEvents.ACCEL_UNITS_PER_MS2));
            gyroscope.writeFrame((int) Math.round(plane.gyroX() * InputEvents.GYRO_UNITS_PER_RADS),
                    (int) Math.round(plane.gyroY() * InputEvents.GYRO_UNITS_PER_RADS),
                    (int) Math.round(plane.gyroZ() * InputEvents.GYRO_UNITS_PER_RADS));
            ap.stabilization();
            command.setAction(ACTION_COMMAND);
            command.putInt(COMMAND_MODE_OFFSET, ap.commandMode()).putFloat(COMMAND_AILERON_OFFSET, (float) ap.aileron())
                    .putFloat(COMMAND_ELEVATOR_OFFSET, (float) ap.elevator())
                    .putFloat(COMMAND_THROTTLE_OFFSET, (float) ap.throttle()).setPayloadLength(COMMAND_BYTES);
            toFbw.write(command.getInt(COMMAND_MODE_OFFSET), command.getFloat(COMMAND_AILERON_OFFSET),
                    command.getFloat(COMMAND_ELEVATOR_OFFSET), command.getFloat(COMMAND_THROTTLE_OFFSET), 0, 0);
            long frames = toFbw.read(frame);
            fbw.checkFailsafe();
            fbw.checkMega128Values(frames > 0, (int) frame[0], frame[1], frame[2], frame[3]);
        }
        if (ms % 100 == 0) {
            position.setAction(Position.ACTION_POSITION).setSender(SENDER).setSenderPriority(Position.PRIORITY);
            record.clear().fixes(ap.fixes()).mode(ap.mode()).waypoint(ap.waypoint())
                    .east((float) ap.east()).distance((float) ap.distanceToTarget());
            position.setPayloadLength(record.encode(position.payload(), 0));
            if (request.decode(setMode, 0, setModeLength) == AutopilotCodec.OK) {
                checksum += request.mode() + request.throttle();
            }
        }
        if (ms % 250 == 0) {
            fix.setAction(ACTION_GPS);
            fix.putFloat(GPS_EAST_OFFSET, (float) plane.east()).putFloat(GPS_NORTH_OFFSET, (float) plane.north())
                    .putFloat(GPS_ALTITUDE_OFFSET, (float) plane.altitude()).putFloat(GPS_COURSE_OFFSET, (float) plane.headingDeg())
                    .putFloat(GPS_SPEED_OFFSET, (float) plane.groundSpeed()).putFloat(GPS_CLIMB_OFFSET, (float) plane.climb())
                    .setPayloadLength(GPS_BYTES);
            ap.navigation(fix.getFloat(GPS_EAST_OFFSET), fix.getFloat(GPS_NORTH_OFFSET), fix.getFloat(GPS_ALTITUDE_OFFSET),
                    fix.getFloat(GPS_COURSE_OFFSET), fix.getFloat(GPS_SPEED_OFFSET), fix.getFloat(GPS_CLIMB_OFFSET));
            ap.altitudeControl();
            ap.climbControl();
        }
        checksum += ap.aileron() + fbw.throttle();
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
    void releasesAllocateNothingAfterWarmUp() {
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
            assertTrue(checksum != 0 && ap.fixes() > 0);
        } finally {
            accelerometer.close();
            gyroscope.close();
        }
    }
}
