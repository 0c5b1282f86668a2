package org.rtdroid.runtime.sensor;

import org.rtdroid.runtime.os.CpuSet;

/**
 * Android's {@code android.hardware.SensorManager} for one component: its listeners run at the
 * component's priority ({@link #priority()}) on the component's CPU ({@link #cpu()}: a partitioned
 * cell pins the listeners' lane there, where the static validation counts their callbacks as the
 * component's own work), and the processing thread of a sensor runs at the
 * highest priority among that sensor's listeners. Obtained with {@code sensorManager()} in a
 * component (the manifest must declare {@code <sensors>}). Registration is set-up: it allocates
 * and may change a processing thread's priority; delivery allocates nothing.
 */
public final class SensorManager {
    /** Sampling periods in microseconds, Android's values (a hint: events are never delivered faster than the device makes them). */
    public static final int SENSOR_DELAY_FASTEST = 0;
    public static final int SENSOR_DELAY_GAME = 20_000;
    public static final int SENSOR_DELAY_UI = 66_667;
    public static final int SENSOR_DELAY_NORMAL = 200_000;

    private final SensorService service;
    private final int priority;
    private final CpuSet cpu;
    /** Per sensor this manager's listeners registered on, where their callbacks are counted (copy on write). */
    private volatile Sensor[] statsSensors = new Sensor[0];
    private volatile ListenerStats[] stats = new ListenerStats[0];
    private long costNanos;

    SensorManager(SensorService service, int priority, CpuSet cpu) {
        this.service = service;
        this.priority = priority;
        this.cpu = cpu;
    }

    /** The sensor of {@code type} ({@link Sensor#TYPE_ACCELEROMETER}, {@code TYPE_GYROSCOPE}, {@code TYPE_ORIENTATION}), or null for another type. */
    public Sensor getDefaultSensor(int type) {
        return service.sensor(type);
    }

    /**
     * Delivers {@code sensor}'s events to {@code listener} at this component's priority, at most
     * one per {@code samplingPeriodUs} (0: every event). Registering a listener again on the same
     * sensor replaces its registration. Until the sensor's input device exists, nothing is delivered.
     *
     * @return true (Android's signature; failures throw)
     * @throws IllegalStateException the sensor has its {@code <sensors listeners>} listeners already
     */
    public boolean registerListener(SensorEventListener listener, Sensor sensor, int samplingPeriodUs) {
        service.register(listener, sensor, samplingPeriodUs, priority, cpu, sensor == null ? null : statsFor(sensor));
        return true;
    }

    /** The callbacks of this manager's listeners on {@code sensor} (created at its first registration: set-up). */
    private synchronized ListenerStats statsFor(Sensor sensor) {
        Sensor[] ss = statsSensors;
        for (int i = 0; i < ss.length; i++) {
            if (ss[i] == sensor) {
                return stats[i];
            }
        }
        ListenerStats s = new ListenerStats();
        s.costNanos(costNanos);
        ListenerStats[] now = java.util.Arrays.copyOf(stats, ss.length + 1);
        now[ss.length] = s;
        Sensor[] sensors = java.util.Arrays.copyOf(ss, ss.length + 1);
        sensors[ss.length] = sensor;
        stats = now;
        statsSensors = sensors;
        return s;
    }

    /**
     * The callbacks of this manager's listeners, one entry per sensor they registered on (kept
     * after they unregister): its component adds them to its own in its status.
     */
    public ListenerStats[] listenerStats() { return stats; }

    /** The cost per callback the admission analysis assumed for this manager's component: its listeners' overruns are counted against it. */
    public synchronized void costNanos(long nanos) {
        costNanos = nanos;
        for (ListenerStats s : stats) {
            s.costNanos(nanos);
        }
    }

    /** Removes {@code listener} from every sensor. */
    public void unregisterListener(SensorEventListener listener) {
        service.unregister(listener, null);
    }

    /** Removes {@code listener} from {@code sensor}. */
    public void unregisterListener(SensorEventListener listener, Sensor sensor) {
        service.unregister(listener, sensor);
    }

    /** The priority this manager's listeners run at (its component's). */
    public int priority() { return priority; }

    /** The CPU this manager's listeners run on (its component's in the cell's partition), or null: the cell's CPUs. */
    public CpuSet cpu() { return cpu; }
}
