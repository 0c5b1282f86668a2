package org.rtdroid.runtime.validation;

import java.util.List;
import org.rtdroid.runtime.manifest.AlarmsDecl;
import org.rtdroid.runtime.manifest.Manifest;
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
 * </ul>
 * Sensors (a polling thread at the highest priority, per-sensor processing threads) belong here too.
 */
public final class RuntimeServices {
    /** The alarm thread's task (and placement unit) name. */
    public static final String ALARM_THREAD = "alarm-thread";

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
    }

    private static void alarmThread(Manifest m, TimingDeclarations timing, List<Task> tasks, List<String> problems) {
        AlarmsDecl a = m.alarms();
        if (a == null) {
            return;
        }
        TimingDeclarations.AlarmsTiming t = timing.alarms();
        String src = m.sourceName() + ":" + a.line();
        long mit = t == null ? -1 : t.minInterArrivalNanos();
        if (mit <= 0) {
            problems.add("INCOMPLETE: " + ALARM_THREAD + " (" + src + "): minimum inter-arrival time required for"
                    + " schedulability (min-interarrival on <alarms>: the shortest interval at which one alarm fires again)");
            return;
        }
        long fire = t.fireCostNanos() > 0 ? t.fireCostNanos() : ALARM_FIRE_COST_NANOS;
        long cost;
        try {
            cost = Math.multiplyExact(fire, (long) a.capacity());
        } catch (ArithmeticException e) {
            cost = Long.MAX_VALUE / 2;
        }
        tasks.add(new Task(m.name(), ALARM_THREAD, Task.Kind.SPORADIC, SERVICE_PRIORITY, mit, cost, mit, 0, -1, src,
                ALARM_THREAD));
    }
}
