package org.rtdroid.runtime.validation;

import java.util.List;
import org.rtdroid.runtime.manifest.AlarmsDecl;
import org.rtdroid.runtime.manifest.ComponentDecl;
import org.rtdroid.runtime.manifest.Manifest;
import org.rtdroid.runtime.manifest.SensorsDecl;
import org.rtdroid.runtime.manifest.TimingDeclarations;
import org.rtdroid.runtime.os.RealtimePolicy;

/**
 * The runtime's own real-time threads that interfere with components, as tasks of the model: the
 * one place where runtime service threads enter the analysis ({@link ModelBuilder} calls
 * {@link #addTo} for every application). Each is a placement unit of its own on a cell of several
 * CPUs ({@link Task#component} = its name, which no component's simple name can be), pinned by the
 * runtime to the CPU {@link Partition} gives it.
 *
 * <ul>
 *   <li><b>The alarm thread</b> ({@value #ALARM_THREAD}) of an application with {@code <alarms>}:
 *       a sporadic task at {@link #SERVICE_PRIORITY}. Every one of the {@code capacity} alarms fires
 *       at most once per {@code min-interarrival} (declared on {@code <alarms>}), so in any window
 *       of that length the thread fires at most {@code capacity} alarms: cost =
 *       {@code capacity × fire-cost}, minimum inter-arrival time = deadline = {@code min-interarrival}.
 *       {@code fire-cost} is declared on {@code <alarms>}, else {@link #ALARM_FIRE_COST_NANOS}.</li>
 *   <li><b>Alarm callbacks</b> run on the event-handler threads (bound or pooled) at the target
 *       receiver's priority: they are the target receiver's own sporadic task (its {@code cost} and
 *       {@code min-interarrival}), which {@link ModelBuilder} models for every receiver, on the
 *       receiver's CPU (the runtime pins the handler threads there).</li>
 *   <li><b>The sensor polling thread</b> ({@value #SENSOR_POLL}) of an application with
 *       {@code <sensors>}: a sporadic task at {@link #SERVICE_PRIORITY}. It reads both input devices
 *       (accelerometer, gyroscope), each of which delivers a frame at most once per
 *       {@code min-interarrival} (declared on {@code <sensors>}: the device's rate), so in any
 *       window of that length it reads at most {@value #SENSOR_DEVICES} frames: cost =
 *       {@code 2 × frame-cost}, minimum inter-arrival time = deadline = {@code min-interarrival}.
 *       {@code frame-cost} is declared on {@code <sensors>}, else {@link #SENSOR_FRAME_COST_NANOS}.</li>
 *   <li><b>A sensor processing thread</b> ({@code sensor-accelerometer}, {@code sensor-gyroscope},
 *       {@code sensor-orientation}) for each type the listeners use ({@code <sensors types>}, all three
 *       when not declared; a type without listeners runs SCHED_OTHER and interferes with nothing): a
 *       sporadic task at the priority it inherits from its highest listener. The manifest does not say
 *       which component listens to which sensor (any component may register through its
 *       SensorManager, at its own priority), so that is the highest priority of the application's
 *       components. Cost = {@code processing-cost} per frame it takes ({@code <sensors>}, else
 *       {@link #SENSOR_PROCESSING_COST_NANOS}): one per window for the accelerometer and the gyroscope,
 *       two for orientation (it fuses frames of both devices); minimum inter-arrival time = deadline =
 *       {@code min-interarrival}. On a partitioned cell the runtime refuses a listener of a type the
 *       model has no processing thread for.</li>
 *   <li><b>Listener callbacks</b> run on the lanes' event-handler threads at the listening
 *       component's priority, on the listening component's CPU (the runtime keeps one lane per
 *       priority and CPU and pins it there, a bound thread from its start, a pool thread as it takes
 *       the lane's release): they are that component's own work (its {@code cost} and
 *       {@code min-interarrival} on its {@code <service>}/{@code <receiver>}), not tasks of their own.</li>
 * </ul>
 */
public final class RuntimeServices {
    /** The alarm thread's task (and placement unit) name. */
    public static final String ALARM_THREAD = "alarm-thread";

    /** The sensor polling thread's task (and placement unit) name. */
    public static final String SENSOR_POLL = "sensor-poll";

    /** The prefix of a sensor processing thread's task (and placement unit) name, before the sensor type. */
    public static final String SENSOR_PROCESSING_PREFIX = "sensor-";

    /** Input devices the polling thread reads (accelerometer, gyroscope). */
    public static final int SENSOR_DEVICES = 2;

    /**
     * The polling thread's time for one frame when {@code <sensors frame-cost>} is not declared:
     * 200 µs. A frame is one {@code read(2)} of the device's input events up to SYN_REPORT and a
     * copy into the processing threads' frame queues (then one unpark each). Source: the sensor
     * benchmark ({@code bench/README.md}, "sensor", run of 2026-11-23 on this 2-CPU VM, unloaded):
     * the whole path from the {@code write(2)} into the device to the start of the listener's
     * callback (polling thread, processing thread, lane: three wake-ups) took 120.6 µs (p50),
     * 199.2 µs (p99); the polling thread's part is a share of that path, so the path's p99 bounds
     * it with its wake-up included. Declare {@code frame-cost} for a measured figure of the target board.
     */
    public static final long SENSOR_FRAME_COST_NANOS = 200_000;

    /**
     * A processing thread's time for one frame when {@code <sensors processing-cost>} is not
     * declared: 200 µs, the same bound from the same benchmark run as {@link #SENSOR_FRAME_COST_NANOS}
     * (turning a raw frame into a sensor event, or one step of the orientation fusion, and handing
     * it to each lane is a share of that measured path).
     */
    public static final long SENSOR_PROCESSING_COST_NANOS = 200_000;

    /**
     * The priority a runtime service thread is modelled at: the top of SCHED_FIFO. The runtime runs
     * it at the cell's highest priority, which no component's exceeds, so it interferes with every
     * component as modelled; a component declared at that very priority is also counted as lower
     * than the service thread (FIFO within the level would let it go first once).
     */
    public static final int SERVICE_PRIORITY = RealtimePolicy.MAX_FIFO_PRIORITY;

    /**
     * The alarm thread's time for one fire when {@code <alarms fire-cost>} is not declared: 50 µs.
     * A fire takes the alarm out of its heap (O(log capacity)), reschedules a repeating one and
     * hands the target's event to its handler thread (a PI mutex and one unpark). Source: the
     * alarm benchmark ({@code bench/README.md}, "alarm", run of 2026-11-23 on this 2-CPU VM): the
     * alarm thread took a due alarm out of its queue and the handler ran it 46.5-69.1 µs (p50)
     * after its instant, the whole path from timer expiry to the callback; the fire alone is a
     * part of that, so 50 µs bounds it with the wake-up included. Declare {@code fire-cost} for a
     * measured figure of the target board.
     */
    public static final long ALARM_FIRE_COST_NANOS = 50_000;

    private RuntimeServices() {}

    /** Adds the service threads {@code m} brings to the model ({@code tasks}) or the problems that keep them out. */
    static void addTo(Manifest m, TimingDeclarations timing, List<Task> tasks, List<String> problems) {
        alarmThread(m, timing, tasks, problems);
        sensorThreads(m, timing, tasks, problems);
    }

    /** The task name of the processing thread of sensor {@code type} ("accelerometer", …). */
    public static String sensorProcessing(String type) { return SENSOR_PROCESSING_PREFIX + type; }

    private static void sensorThreads(Manifest m, TimingDeclarations timing, List<Task> tasks, List<String> problems) {
        SensorsDecl s = m.sensors();
        if (s == null) {
            return;
        }
        TimingDeclarations.SensorsTiming t = timing.sensors();
        String src = m.sourceName() + ":" + s.line();
        long mit = t == null ? -1 : t.minInterArrivalNanos();
        if (incomplete(mit, SENSOR_POLL, src, "<sensors>: the shortest interval between two frames of one input device",
                problems)) {
            return;
        }
        long frame = t.frameCostNanos() > 0 ? t.frameCostNanos() : SENSOR_FRAME_COST_NANOS;
        tasks.add(new Task(m.name(), SENSOR_POLL, Task.Kind.SPORADIC, SERVICE_PRIORITY, mit,
                times(frame, SENSOR_DEVICES), mit, 0, -1, src, SENSOR_POLL));
        int listenerPriority = m.components().stream().mapToInt(ComponentDecl::priority).max().orElse(0);
        if (listenerPriority <= 0) {
            return;  // no component: no listener, every processing thread stays SCHED_OTHER
        }
        long processing = t.processingCostNanos() > 0 ? t.processingCostNanos() : SENSOR_PROCESSING_COST_NANOS;
        for (String type : t.types()) {
            int frames = type.equals("orientation") ? SENSOR_DEVICES : 1;  // fusion takes a frame of each device
            String name = sensorProcessing(type);
            tasks.add(new Task(m.name(), name, Task.Kind.SPORADIC, listenerPriority, mit, times(processing, frames), mit,
                    0, -1, src, name));
        }
    }

    /** Whether {@code mit} is undeclared, then with the reason {@code thread} is left out of the model. */
    private static boolean incomplete(long mit, String thread, String src, String where, List<String> problems) {
        if (mit > 0) {
            return false;
        }
        problems.add("INCOMPLETE: " + thread + " (" + src + "): minimum inter-arrival time required for"
                + " schedulability (min-interarrival on " + where + ")");
        return true;
    }

        /** {@code cost × n}, saturated far above any deadline instead of overflowing. */
    private static long times(long cost, long n) {
        try {
            return Math.multiplyExact(cost, n);
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 2;
        }
    }

    private static void alarmThread(Manifest m, TimingDeclarations timing, List<Task> tasks, List<String> problems) {
        AlarmsDecl a = m.alarms();
        if (a == null) {
            return;
        }
        TimingDeclarations.AlarmsTiming t = timing.alarms();
        String src = m.sourceName() + ":" + a.line();
        long mit = t == null ? -1 : t.minInterArrivalNanos();
        if (incomplete(mit, ALARM_THREAD, src, "<alarms>: the shortest interval at which one alarm fires again", problems)) {
            return;
        }
        long fire = t.fireCostNanos() > 0 ? t.fireCostNanos() : ALARM_FIRE_COST_NANOS;
        tasks.add(new Task(m.name(), ALARM_THREAD, Task.Kind.SPORADIC, SERVICE_PRIORITY, mit, times(fire, a.capacity()),
                mit, 0, -1, src,
                ALARM_THREAD));
    }
}
