package org.rtdroid.runtime.sensor;

import java.lang.foreign.Arena;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.rtdroid.runtime.event.HandlerDispatcher;
import org.rtdroid.runtime.event.HandlerStrategy;
import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.os.PartitionPins;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.os.RealtimePolicy;
import org.rtdroid.runtime.os.RealtimeThreads;

/**
 * The real-time SensorManager's engine (dissertation 3.7, Fig. 3.16): one application's sensors.
 *
 * <pre>
 *   /dev/input/eventN ──poll/read──▶ polling thread (cell's highest priority)
 *        accelerometer, gyroscope        │ one raw frame per SYN_REPORT
 *                                        ▼
 *        processing thread per sensor type (accelerometer, gyroscope, orientation = fusion of both)
 *           at the highest priority among that sensor's current listeners
 *                                        │ one SensorEvent per frame, to each lane, highest first
 *                                        ▼
 *        lane per (sensor, priority, CPU): an AsyncEventHandler at that priority, pinned to
 *           that CPU, bound or pooled; runs onSensorChanged of the lane's listeners
 * </pre>
 *
 * Capacities come from the manifest's {@code <sensors listeners queue strategy pool-size>}: the
 * listeners per sensor (and so the priorities they may have), the depth of every queue (raw
 * frames per processing thread, events per lane). Full queues: {@value #QUEUE_POLICY}, counted.
 * Components reach it through a {@link SensorManager} bound to their priority. On a partitioned
 * cell the polling thread and each processing thread are pinned to the CPU the cell's partition
 * gives them ({@code cpuOf} by {@link #POLLING_THREAD} and {@link #processingThreadName}: the names
 * static validation models them under); the listeners' lanes run on their component's CPU
 * ({@link #manager(int, CpuSet)}: one lane per priority and CPU, so components at one priority on
 * two CPUs each keep their callbacks on their own), where the model counts the callbacks.
 * Registration allocates (set-up); reading, processing and dispatching a frame allocate nothing.
 */
public final class SensorService {
    /** What a full raw-frame queue or event lane does with a new entry. */
    public static final String QUEUE_POLICY = "drop-newest";

    /** The polling thread's name within the application (its placement unit in the cell's partition). */
    public static final String POLLING_THREAD = "sensor-poll";

    private final Function<String, CpuSet> cpuOf;

    private final String name;
    private final int listenersPerSensor;
    private final int pollingPriority;
    private final IntFunction<RealtimePolicy> policyFor;
    private final Arena arena = Arena.ofShared();
    private final Sensor accelerometer = new Sensor(Sensor.TYPE_ACCELEROMETER, "rtdroid accelerometer");
    private final Sensor gyroscope = new Sensor(Sensor.TYPE_GYROSCOPE, "rtdroid gyroscope");
    private final Sensor orientation = new Sensor(Sensor.TYPE_ORIENTATION, "rtdroid orientation (fusion)");
    private final SensorChannel accelChannel;
    private final SensorChannel gyroChannel;
    private final SensorChannel orientChannel;
    private final SensorChannel[] channels;
    private final InputReader reader;
    private volatile Thread pollingThread;
    private volatile int pollingTid;
    private volatile boolean started;

    /**
     * @param listenersPerSensor listeners one sensor may have at once (and priorities they may have)
     * @param queueDepth entries of every queue (raw frames, events per lane)
     * @param strategy how the listeners' lanes get threads
     * @param poolSize pool threads per sensor of the pooled strategy (ignored for bound)
     * @param pollingPriority priority of the polling thread (the cell's highest)
     * @param policyFor scheduling policy of a thread at a priority; null: everything SCHED_OTHER
     */
    public SensorService(String name, int listenersPerSensor, int queueDepth, HandlerStrategy strategy, int poolSize,
                         int pollingPriority, IntFunction<RealtimePolicy> policyFor,
                         InputDeviceLocator accelerometerDevice, InputDeviceLocator gyroscopeDevice) {
        this(name, listenersPerSensor, queueDepth, strategy, poolSize, pollingPriority, policyFor, accelerometerDevice,
                gyroscopeDevice, thread -> null);
    }

    /**
     * @param cpuOf the CPU the cell's partition pins a thread to, by its name within the
     *     application ({@link #POLLING_THREAD}, {@link #processingThreadName}), or null: not pinned
     */
    public SensorService(String name, int listenersPerSensor, int queueDepth, HandlerStrategy strategy, int poolSize,
                         int pollingPriority, IntFunction<RealtimePolicy> policyFor,
                         InputDeviceLocator accelerometerDevice, InputDeviceLocator gyroscopeDevice,
                         Function<String, CpuSet> cpuOf) {
        this.cpuOf = cpuOf;
        if (listenersPerSensor < 1) {
            throw new IllegalArgumentException("sensors of '" + name + "': listeners per sensor must be at least 1");
        }
        if (queueDepth < 1) {
            throw new IllegalArgumentException("sensors of '" + name + "': queue depth must be at least 1");
        }
        this.name = name;
        this.listenersPerSensor = listenersPerSensor;
        this.pollingPriority = pollingPriority;
        this.policyFor = policyFor;
        accelChannel = channel(accelerometer, strategy, poolSize, queueDepth, queueDepth);
        gyroChannel = channel(gyroscope, strategy, poolSize, queueDepth, queueDepth);
        orientChannel = channel(orientation, strategy, poolSize, queueDepth, 2 * queueDepth);
        channels = new SensorChannel[] {accelChannel, gyroChannel, orientChannel};
        reader = new InputReader(new InputReader.Device[] {
            new InputReader.Device("accelerometer", FrameQueue.ACCELEROMETER, InputEvents.ABS_X, accelerometerDevice,
                    new FrameQueue[] {accelChannel.frames, orientChannel.frames}, arena),
            new InputReader.Device("gyroscope", FrameQueue.GYROSCOPE, InputEvents.ABS_RX, gyroscopeDevice,
                    new FrameQueue[] {gyroChannel.frames, orientChannel.frames}, arena),
        }, arena);
    }

    /** The simulator's devices, found by name on this machine (the cell's configuration). */
    public SensorService(String name, int listenersPerSensor, int queueDepth, HandlerStrategy strategy, int poolSize,
                         int pollingPriority, IntFunction<RealtimePolicy> policyFor) {
        this(name, listenersPerSensor, queueDepth, strategy, poolSize, pollingPriority, policyFor, thread -> null);
    }

    /** The simulator's devices, found by name; threads pinned by {@code cpuOf} (see the full constructor). */
    public SensorService(String name, int listenersPerSensor, int queueDepth, HandlerStrategy strategy, int poolSize,
                         int pollingPriority, IntFunction<RealtimePolicy> policyFor, Function<String, CpuSet> cpuOf) {
        this(name, listenersPerSensor, queueDepth, strategy, poolSize, pollingPriority, policyFor,
                InputDeviceLocator.byName(Sensor.ACCELEROMETER_DEVICE), InputDeviceLocator.byName(Sensor.GYROSCOPE_DEVICE),
                cpuOf);
    }

    /** The name within the application of a sensor type's processing thread ("sensor-accelerometer", …). */
    public static String processingThreadName(int type) { return "sensor-" + Sensor.typeName(type); }

    private SensorChannel channel(Sensor s, HandlerStrategy strategy, int poolSize, int depth, int frameDepth) {
        String n = name + "/" + processingThreadName(s.getType());
        HandlerDispatcher d = HandlerDispatcher.create(n, strategy, poolSize, listenersPerSensor, policyFor);
        return new SensorChannel(n, s, listenersPerSensor, depth, frameDepth, d, policyFor);
    }

    /** The face a component at {@code priority} uses: its listeners run at that priority, on the dispatcher's CPUs. */
    public SensorManager manager(int priority) {
        return manager(priority, null);
    }

    /**
     * The face a component at {@code priority} on {@code cpu} uses: its listeners run at that
     * priority, pinned to that CPU (the component's in the cell's partition; null: the
     * dispatcher's CPUs, the cell's).
     */
    public SensorManager manager(int priority, CpuSet cpu) {
        if (priority < 1 || priority > 99) {
            throw new IllegalArgumentException("listener priority " + priority + " outside 1..99");
        }
        return new SensorManager(this, priority, cpu);
    }

    /**
     * Starts the processing threads and the polling thread (which opens the devices as they
     * appear); on a partitioned cell ({@code cpuOf} places one of them) it waits until each has its CPU.
     *
     * @throws IllegalStateException when the kernel refuses to pin one to its CPU (the errno says
     *     why; that thread has ended without handling anything: {@link #stop} the service)
     */
    public void start() {
        PartitionPins pins = launch();  // the processing threads take this service's lock before pinning
        if (partitioned()) {  // else nothing to pin: the threads start as they come
            pins.await();
        }
    }

    private synchronized PartitionPins launch() {
        if (started) {
            throw new IllegalStateException("sensors of '" + name + "' already started");
        }
        started = true;
        PartitionPins pinned = new PartitionPins("sensors of '" + name + "'", channels.length + 1);
        for (SensorChannel c : channels) {
            c.start(this, () -> pinCurrentThread(processingThreadName(c.sensor.getType()), pinned));
        }
        Thread t = Thread.ofPlatform().name(name + "/" + POLLING_THREAD).daemon(true).unstarted(() -> {
            if (policyFor != null) {
                RealtimeThreads.applyToCurrentThread(policyFor.apply(pollingPriority));
            }
            pollingTid = Linux.gettid();
            if (pinCurrentThread(POLLING_THREAD, pinned)) {
                reader.run();
            }
        });
        pollingThread = t;
        t.start();
        return pinned;
    }

    private boolean partitioned() {
        if (cpuOf == null || cpuOf.apply(POLLING_THREAD) != null) {
            return cpuOf != null;
        }
        for (SensorChannel c : channels) {
            if (cpuOf.apply(processingThreadName(c.sensor.getType())) != null) {
                return true;
            }
        }
        return false;
    }

    /** Pins the calling thread where {@code cpuOf} places {@code thread}; false if the kernel refused. */
    private boolean pinCurrentThread(String thread, PartitionPins pins) {
        return pins.pinCurrentThread(thread, cpuOf == null ? null : cpuOf.apply(thread));
    }

    /**
     * Stops delivering: the processing threads and the listeners' lanes end, so no listener runs
     * once this returns. The polling thread goes on reading the devices (what it reads is dropped)
     * and keeps them open: a component still writing into one (the simulator's FIFO on a host
     * without uinput) is not cut off with EPIPE while its application stops. {@link #stop} ends it.
     */
    public void stopDelivery() throws InterruptedException {
        for (SensorChannel c : channels) {
            c.stop();
            c.dispatcher.stop();
        }
    }

    /** Stops every thread of the service and closes the devices; pending events are dropped. */
    public void stop() throws InterruptedException {
        stopDelivery();
        reader.stop();
        Thread t = pollingThread;
        if (t != null) {
            t.join(2_000); // poll(2) returns within RESCAN_MILLIS
        }
    }

    // ---------------------------------------------------------------- registration (set-up)

    Sensor sensor(int type) {
        return switch (type) {
            case Sensor.TYPE_ACCELEROMETER -> accelerometer;
            case Sensor.TYPE_GYROSCOPE -> gyroscope;
            case Sensor.TYPE_ORIENTATION -> orientation;
            default -> null;
        };
    }

    private SensorChannel channelOf(Sensor s) {
        for (SensorChannel c : channels) {
            if (c.sensor == s) {
                return c;
            }
        }
        throw new IllegalArgumentException(s + " is not a sensor of '" + name + "' (get it from getDefaultSensor)");
    }

    /** A listener's registration at {@code priority} on {@code cpu}; {@code stats}: where its callbacks are counted (its component's), or null. */
    synchronized void register(SensorEventListener listener, Sensor sensor, int samplingPeriodUs, int priority, CpuSet cpu,
            ListenerStats stats) {
        if (listener == null || sensor == null) {
            throw new IllegalArgumentException("registerListener needs a listener and a sensor");
        }
        if (samplingPeriodUs < 0) {
            throw new IllegalArgumentException("sampling period " + samplingPeriodUs + " us is negative");
        }
        SensorChannel c = channelOf(sensor);
        if (partitioned() && cpuOf.apply(processingThreadName(sensor.getType())) == null) {
            // a listener would raise a thread the analysis never counted, on no CPU of the partition
            throw new IllegalStateException("sensor " + sensor.getName() + " of '" + name + "': its processing thread is"
                    + " not in the cell's partition; name '" + Sensor.typeName(sensor.getType())
                    + "' in <sensors types> so that the analysis counts it");
        }
        long periodNanos = samplingPeriodUs * 1_000L;
        // Registering again replaces the registration (its period, its priority, its CPU).
        c.removeListener(listener);
        if (c.listenerCount() == listenersPerSensor) {
            throw new IllegalStateException("sensor " + sensor.getName() + " already has its " + listenersPerSensor
                    + " listeners (<sensors listeners=\"" + listenersPerSensor + "\">)");
        }
        ListenerLane lane = c.lane(priority, cpu);
        ListenerLane.Registration[] old = lane.listeners;
        ListenerLane.Registration[] now = java.util.Arrays.copyOf(old, old.length + 1);
        now[old.length] = new ListenerLane.Registration(listener, periodNanos, stats);
        lane.listeners = now;
        c.listenersChanged();
    }

    /** @return whether the listener was registered (on {@code sensor}, or on any sensor if null) */
    synchronized boolean unregister(SensorEventListener listener, Sensor sensor) {
        boolean any = false;
        for (SensorChannel c : channels) {
            if (sensor == null || c.sensor == sensor) {
                if (c.removeListener(listener)) {
                    any = true;
                    c.listenersChanged();
                }
            }
        }
        return any;
    }

    // ---------------------------------------------------------------- reports

    public String name() { return name; }

    public int listenersPerSensor() { return listenersPerSensor; }

    private SensorChannel channelOfType(int type) {
        Sensor s = sensor(type);
        if (s == null) {
            throw new IllegalArgumentException("no sensor of type " + type);
        }
        return channelOf(s);
    }

    /** The polling thread (null before {@link #start}). */
    public Thread pollingThread() { return pollingThread; }

    /** Kernel thread id of the polling thread (0 before it ran). */
    public int pollingTid() { return pollingTid; }

    /** The processing thread of a sensor type (null before {@link #start}). */
    public Thread processingThread(int type) { return channelOfType(type).thread(); }

    /** Kernel thread id of a sensor type's processing thread (0 before it ran). */
    public int processingTid(int type) { return channelOfType(type).tid(); }

    /** errno of the last priority change of a processing thread (0: the kernel applied it). */
    public int processingPriorityErrno(int type) { return channelOfType(type).priorityErrno(); }

    /** The dispatcher that runs a sensor type's listener lanes. */
    public HandlerDispatcher dispatcher(int type) { return channelOfType(type).dispatcher; }

    public synchronized int listeners(int type) { return channelOfType(type).listenerCount(); }

    /** Frames (SYN_REPORTs) read from the devices. */
    public long framesRead() { return reader.frames; }

    /** Records with an out-of-range time. */
    public long malformedRecords() { return reader.malformed; }

    /** Events of a type or code the device does not have. */
    public long unknownEvents() { return reader.unknown; }

    /** Streams that ended inside a record. */
    public long shortRecords() { return reader.shortRecords; }

    /** SYN_DROPPED reports (the kernel's buffer overflowed; the frame was skipped). */
    public long syncDropped() { return reader.syncDropped; }

    /** Raw frames dropped because a processing thread's queue was full. */
    public long droppedFrames() {
        long n = 0;
        for (SensorChannel c : channels) {
            n += c.frames.dropped();
        }
        return n;
    }

    /** Events dropped because a lane's queue was full. */
    public long droppedEvents() {
        long n = 0;
        for (SensorChannel c : channels) {
            n += c.droppedEvents();
        }
        return n;
    }

    /** Events a sensor type's processing thread produced. */
    public long events(int type) { return channelOfType(type).events(); }

    /** onSensorChanged calls that returned. */
    public long delivered() {
        long n = 0;
        for (SensorChannel c : channels) {
            n += c.delivered();
        }
        return n;
    }

    /** onSensorChanged calls that threw (the listener stays registered). */
    public long listenerFailures() {
        long n = 0;
        for (SensorChannel c : channels) {
            n += c.listenerFailures();
        }
        return n;
    }

    /**
     * Device-to-listener latency of every lane that delivered, "; "-separated: per event, from the
     * frame's time stamp (the kernel's, CLOCK_MONOTONIC, taken as the frame was written into the
     * input device) to the start of the lane's first listener, e.g. "fall accelerometer@80/cpu1
     * n=1180 p50<=150.2us p99<=380.0us max=512.7us" (percentiles are bucket upper bounds, at most
     * 12.5% high); "" before any. Reports; allocates.
     */
    public String deliveryLatencies() {
        StringBuilder sb = new StringBuilder();
        for (SensorChannel c : channels) {
            c.appendLatencies(name, sb);
        }
        return sb.toString();
    }

    /** Every lane's queue and owed handler runs (reports and test diagnostics; allocates). */
    public String laneStates() {
        StringBuilder sb = new StringBuilder();
        for (SensorChannel c : channels) {
            sb.append(c.laneStates());
        }
        return sb.toString();
    }

    /** Times a device was opened (again, after it ended). */
    public long deviceOpens() { return reader.opens; }

    public boolean devicesOpen() { return reader.allOpen(); }

    /** "accelerometer=/dev/input/event3, gyroscope=not found (...)" (allocates). */
    public String describeDevices() { return reader.describeDevices(); }
}
