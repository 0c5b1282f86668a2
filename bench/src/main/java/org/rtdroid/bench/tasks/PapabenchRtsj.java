package org.rtdroid.bench.tasks;

import java.util.ArrayList;
import java.util.List;
import org.rtdroid.logic.papabench.Aircraft;
import org.rtdroid.logic.papabench.Autopilot;
import org.rtdroid.logic.papabench.FlyByWire;
import org.rtdroid.logic.papabench.Task;
import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.os.RealtimePolicy;
import org.rtdroid.runtime.os.RealtimeThreads;

/**
 * jPapaBench as an RTSJ programmer writes it without RTDroid (Table 4.2's "RTSJ" column): the same
 * {@link Aircraft}, {@link FlyByWire} and {@link Autopilot} logic, one real-time thread per task of
 * {@link Task} (its period, start offset and priority, SCHED_FIFO, all on one CPU; an absolute-time
 * sleep per period) that the program creates and releases itself, the modules joined by global
 * buffers guarded by monitors instead of channels: the servos, the infrared attitude, the GPS fix
 * and the SPI link's two registers. No channels, no scopes, no manifest, no sensor path (the IR
 * task writes the attitude into its buffer, Stabilization reads it there, as the dissertation's
 * RTSJ version "reads sensor data from global shared memory buffers").
 */
public final class PapabenchRtsj {
    public static final long STABILIZATION_PERIOD_NANOS = Task.STABILIZATION.periodMillis * 1_000_000L;

    /** A record of doubles written by one task and read by others: guarded by its monitor. */
    static final class Buffer {
        private final double[] values;
        private long written;
        private long taken;

        Buffer(double... initial) {
            values = initial.clone();
        }

        /** Takes the first values of {@code from} (as many as this buffer holds). */
        synchronized void put(double[] from) {
            System.arraycopy(from, 0, values, 0, values.length);
            written++;
        }

        /** Copies the newest values; @return whether they arrived since the last take */
        synchronized boolean take(double[] into) {
            System.arraycopy(values, 0, into, 0, values.length);
            boolean fresh = written != taken;
            taken = written;
            return fresh;
        }
    }

    private final Aircraft aircraft = new Aircraft(0, 0, 80, 0, 16);
    private final FlyByWire fbw = new FlyByWire();
    private final Autopilot autopilot = new Autopilot();
    private final Buffer servos = new Buffer(0, 0, Autopilot.CRUISE_THROTTLE);
    private final Buffer attitude = new Buffer(0, 0, 0, 0);
    private final Buffer gpsFix = new Buffer(0, 0, 0, 0, 0, 0);
    private final Buffer fbwData = new Buffer(0, Autopilot.START_MODE, 0, 0, Autopilot.CRUISE_THROTTLE, 0);
    private final Buffer command = new Buffer(Autopilot.START_MODE, 0, 0, Autopilot.CRUISE_THROTTLE);
    private volatile boolean running = true;

    /** One release of {@code task}; {@code v} is that task's own scratch. */
    private void release(Task task, double[] v) {
        switch (task) {
            case FLIGHT_MODEL -> {
                servos.take(v);
                synchronized (aircraft) {
                    aircraft.step(Task.FLIGHT_MODEL.periodMillis * 1e-3, v[0], v[1], v[2]);
                }
            }
            case IR -> {
                synchronized (aircraft) {
                    v[0] = aircraft.rollDeg();
                    v[1] = aircraft.pitchDeg();
                    v[2] = aircraft.rollRateDegS();
                    v[3] = aircraft.pitchRateDegS();
                }
                attitude.put(v);
            }
            case GPS -> {
                synchronized (aircraft) {
                    v[0] = aircraft.east();
                    v[1] = aircraft.north();
                    v[2] = aircraft.altitude();
                    v[3] = aircraft.headingDeg();
                    v[4] = aircraft.groundSpeed();
                    v[5] = aircraft.climb();
                }
                gpsFix.put(v);
            }
            case TEST_PPM -> {
                synchronized (fbw) {
                    fbw.testPpm(0, Autopilot.START_MODE, 0, 0, Autopilot.CRUISE_THROTTLE); // no ground station
                }
            }
            case SEND_DATA_TO_AUTOPILOT -> {
                synchronized (fbw) {
                    v[0] = fbw.radioSeq();
                    v[1] = fbw.radioMode();
                    v[2] = fbw.rollStick();
                    v[3] = fbw.pitchStick();
                    v[4] = fbw.throttleStick();
                    v[5] = fbw.failsafe() ? 1 : 0;
                }
                fbwData.put(v);
            }
            case CHECK_FAILSAFE -> {
                synchronized (fbw) {
                    fbw.checkFailsafe();
                }
            }
            case CHECK_MEGA128_VALUES -> {
                boolean arrived = command.take(v);
                synchronized (fbw) {
                    fbw.checkMega128Values(arrived, (int) v[0], v[1], v[2], v[3]);
                    v[0] = fbw.aileron();
                    v[1] = fbw.elevator();
                    v[2] = fbw.throttle();
                }
                servos.put(v);
            }
            case RADIO_CONTROL -> {
                fbwData.take(v);
                synchronized (autopilot) {
                    autopilot.radioControl((long) v[0], (int) v[1], v[2], v[3], v[4], v[5] != 0);
                }
            }
            case STABILIZATION -> {
                attitude.take(v);
                synchronized (autopilot) {
                    autopilot.attitude(v[0], v[1], v[2], v[3]);
                    autopilot.stabilization();
                }
            }
            case LINK_FBW_SEND -> {
                synchronized (autopilot) {
                    v[0] = autopilot.commandMode();
                    v[1] = autopilot.aileron();
                    v[2] = autopilot.elevator();
                    v[3] = autopilot.throttle();
                }
                command.put(v);
            }
            case REPORTING -> {
                synchronized (autopilot) { // what the ground station would be sent
                    v[0] = autopilot.east() + autopilot.north() + autopilot.altitude() + autopilot.mode()
                            + autopilot.waypoint() + autopilot.distanceToTarget();
                }
            }
            case NAVIGATION -> {
                if (gpsFix.take(v)) {
                    synchronized (autopilot) {
                        autopilot.navigation(v[0], v[1], v[2], v[3], v[4], v[5]);
                    }
                }
            }
            case ALTITUDE_CONTROL -> {
                synchronized (autopilot) {
                    autopilot.altitudeControl();
                }
            }
            case CLIMB_CONTROL -> {
                synchronized (autopilot) {
                    autopilot.climbControl();
                }
            }
        }
    }

    /** Runs the 14 tasks until {@code into} has its Stabilization releases; @return the autopilot's fixes */
    public long run(CpuSet cpu, TaskDurations into) throws InterruptedException {
        long start = Linux.monotonicNanos() + 20_000_000L;
        List<Thread> threads = new ArrayList<>();
        for (Task task : Task.values()) {
            long period = task.periodMillis * 1_000_000L;
            double[] scratch = new double[6];
            threads.add(RealtimeThreads.start("rtsj-papabench-" + task.taskName, new RealtimePolicy(task.priority, cpu, 1), () -> {
                for (long release = start + task.offsetMillis * 1_000_000L; running; release += period) {
                    Linux.sleepUntilNanos(release);
                    long begin = Linux.monotonicNanos();
                    release(task, scratch);
                    long end = Linux.monotonicNanos();
                    if (task == Task.STABILIZATION && !into.record(release, begin, end)) {
                        running = false;
                    }
                    if (end - release > period) { // overran: the next release is the next period after now
                        release += (end - release) / period * period;
                    }
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        return autopilot.fixes();
    }
}
