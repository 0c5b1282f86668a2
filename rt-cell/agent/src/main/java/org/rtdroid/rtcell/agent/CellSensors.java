package org.rtdroid.rtcell.agent;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.Consumer;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.sensor.sim.MotionTrace;
import org.rtdroid.runtime.sensor.sim.TraceReplayer;
import org.rtdroid.runtime.sensor.sim.UinputDevice;
import org.rtdroid.runtime.text.Printable;

/**
 * The cell's sensors as the management ring sees them (protocols.md, "Sensor traces"): the
 * runtime's sensor simulator, whose virtual accelerometer and gyroscope the agent creates through
 * {@code /dev/uinput} at start-up ({@link #open}); a motion trace sent by {@code rtdroid rt sensors
 * replay} is checked whole and replayed into them on a thread of its own at SCHED_OTHER, below
 * every real-time thread of the cell. The runtime's SensorManager reads those devices as any
 * input device ({@code /dev/input/event*}).
 *
 * <p>Where the kernel has no {@code /dev/uinput} (the host board's), or the agent cannot use it,
 * the cell has no sensors: a trace is still checked, then refused {@code SENSORS_UNAVAILABLE} with
 * the one-line reason, which {@code SENSOR_STATUS} and the agent's start-up line also give.
 */
public class CellSensors implements AutoCloseable {
    private final String unavailable;

    /** Sensors that are not there, for {@code reason} (said after "sensors unavailable: "). */
    public static CellSensors unavailable(String reason) {
        return new CellSensors("sensors unavailable: " + reason);
    }

    private CellSensors(String unavailable) {
        this.unavailable = unavailable;
    }

    /**
     * The cell's sensors: the simulator's two uinput devices, created now, or (when they cannot
     * be) sensors that say why not. Prints one line either way.
     */
    public static CellSensors open(Path uinput, Consumer<String> out) {
        String problem = uinputProblem(uinput);
        CellSensors sensors;
        if (problem != null) {
            sensors = unavailable(problem);
        } else {
            sensors = Simulated.create(uinput, out);
        }
        out.accept("rtcell: " + sensors.describe());
        return sensors;
    }

    /**
     * Why sensors cannot be made through {@code uinput} on this machine, or null when they can:
     * the device node must exist (the kernel has uinput, built in or loaded) and be writable.
     */
    public static String uinputProblem(Path uinput) {
        if (!Files.exists(uinput)) {
            return "this kernel has no " + uinput;
        }
        if (!Files.isWritable(uinput)) {
            return uinput + " is not writable by the agent (the sensor simulator needs root or write access)";
        }
        return null;
    }

    /** The sensors' devices and replay state. @throws DeployRefusal SENSORS_UNAVAILABLE */
    public String status() throws DeployRefusal {
        throw new DeployRefusal(ResultCode.SENSORS_UNAVAILABLE, unavailable);
    }

    /**
     * Checks {@code trace} whole, then starts replaying it.
     *
     * @return what is replayed (for the ACK's text)
     * @throws DeployRefusal BAD_TRACE (the trace, line and problem), SENSORS_UNAVAILABLE or BUSY
     */
    public final String replay(String name, byte[] trace) throws DeployRefusal {
        MotionTrace t;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(new ByteArrayInputStream(trace),
                StandardCharsets.UTF_8))) {
            t = MotionTrace.parse(name, in);
        } catch (IllegalArgumentException | IOException e) {
            throw new DeployRefusal(ResultCode.BAD_TRACE, e.getMessage());
        }
        return start(name, t);
    }

    String start(String name, MotionTrace trace) throws DeployRefusal {
        throw new DeployRefusal(ResultCode.SENSORS_UNAVAILABLE, unavailable);
    }

    String describe() {
        return unavailable;
    }

    @Override
    public void close() {
    }

    static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.2f s", nanos / 1e9);
    }

    /** The simulator's devices in this cell, and at most one replay at a time. */
    private static final class Simulated extends CellSensors {
        /** How long {@link #close} waits for a replay to end before it leaves the devices to the exit. */
        private static final long CLOSE_WAIT_MILLIS = 1000;

        private final UinputDevice accelerometer;
        private final UinputDevice gyroscope;
        private final Consumer<String> out;
        private Thread replaying;
        private String replayName;
        private TraceReplayer replayer;
        private MotionTrace replayTrace;
        private volatile String last = "no replay yet";

        private Simulated(UinputDevice accelerometer, UinputDevice gyroscope, Consumer<String> out) {
            super(null);
            this.accelerometer = accelerometer;
            this.gyroscope = gyroscope;
            this.out = out;
        }

        static CellSensors create(Path uinput, Consumer<String> out) {
            UinputDevice acc = null;
            try {
                acc = UinputDevice.accelerometer();
                return new Simulated(acc, UinputDevice.gyroscope(), out);
            } catch (RuntimeException e) {
                if (acc != null) {
                    acc.close();
                }
                return unavailable("cannot create the simulator's devices through " + uinput + ": " + e.getMessage());
            }
        }

        @Override
        String describe() {
            return devices() + " (uinput, the runtime's sensor simulator)";
        }

        private String devices() {
            return "sensors: accelerometer " + accelerometer.label() + ", gyroscope " + gyroscope.label();
        }

        /** Short, so that the lanes' latencies after it fit in the answer (ManagementLoop.withDelivery). */
        @Override
        public synchronized String status() {
            String now = replaying != null && replaying.isAlive()
                    ? "replaying " + replayName + " (" + replayer.written() + " of " + replayTrace.size() + " samples)"
                    : "idle; " + last;
            return devices() + "; " + now;
        }

        @Override
        synchronized String start(String name, MotionTrace trace) throws DeployRefusal {
            if (replaying != null && replaying.isAlive()) {
                throw new DeployRefusal(ResultCode.BUSY, "replay of " + Printable.escape(replayName) + " running (" + replayer.written()
                        + " of " + replayTrace.size() + " samples written); try again when it ends");
            }
            TraceReplayer r = new TraceReplayer(trace, accelerometer, gyroscope);
            String what = "replaying " + trace.size() + " samples over " + seconds(trace.durationNanos());
            // An ordinary (SCHED_OTHER) thread: the simulator stands for the world outside the cell
            // and must never take the CPU from a real-time thread.
            Thread t = new Thread(() -> {
                try {
                    r.replay(Linux.monotonicNanos() + 1_000_000L);
                    last = "last replay " + name + ": " + r.written() + " samples written";
                } catch (RuntimeException e) {
                    last = "last replay " + name + " failed after " + r.written() + " samples: " + e.getMessage();
                }
                out.accept("rtcell: " + last);
            }, "sensor-replay");
            t.setDaemon(true);
            replaying = t;
            replayName = name;
            replayer = r;
            replayTrace = trace;
            t.start();
            return what;
        }

        @Override
        public void close() {
            Thread t;
            synchronized (this) {
                t = replaying;
            }
            try {
                if (t != null) {
                    t.join(CLOSE_WAIT_MILLIS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (t != null && t.isAlive()) {
                return; // still writing: the devices go when the process exits
            }
            accelerometer.close();
            gyroscope.close();
        }
    }
}
