package org.rtdroid.runtime.sensor;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import org.rtdroid.runtime.event.HandlerDispatcher;
import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.os.RealtimePolicy;
import org.rtdroid.runtime.os.RealtimeThreads;

/**
 * One sensor type's processing thread: it takes raw frames from its {@link FrameQueue}, turns
 * them into a {@link SensorEvent} (scaling, or fusion for orientation) and posts the event to each
 * lane of listeners, highest priority first. Its SCHED_FIFO priority is the highest among the
 * sensor's current listeners (priority inheritance: a high-priority listener is never served by a
 * thread below it, and a sensor only low-priority listeners use does not run above them); with no
 * listener it runs SCHED_OTHER. The priority is set through the kernel (sched_setscheduler by
 * tid) whenever a listener registers or leaves.
 */
final class SensorChannel {
    final Sensor sensor;
    final FrameQueue frames;
    final HandlerDispatcher dispatcher;
    private final IntFunction<RealtimePolicy> policyFor;
    private final int maxLanes;
    private final int depth;
    private final String name;
    private final OrientationFilter filter;
    private final SensorEvent scratch = new SensorEvent();
    private final List<ListenerLane> lanes = new ArrayList<>();
    /** Every lane, for reports from any thread. */
    private volatile ListenerLane[] allLanes = new ListenerLane[0];
    /** Lanes that have listeners, priority descending (copy-on-write; read by the processing thread). */
    private volatile ListenerLane[] active = new ListenerLane[0];
    private volatile boolean running = true;
    private volatile Thread thread;
    private volatile int tid;
    private int targetPriority;
    private volatile int priorityErrno;
    private volatile long events;

    SensorChannel(String name, Sensor sensor, int maxLanes, int depth, int frameDepth, HandlerDispatcher dispatcher,
                  IntFunction<RealtimePolicy> policyFor) {
        this.name = name;
        this.sensor = sensor;
        this.maxLanes = maxLanes;
        this.depth = depth;
        this.frames = new FrameQueue(frameDepth);
        this.dispatcher = dispatcher;
        this.policyFor = policyFor;
        this.filter = sensor.getType() == Sensor.TYPE_ORIENTATION ? new OrientationFilter() : null;
        this.scratch.sensor = sensor;
    }

    // ---------------------------------------------------------------- set-up (under the service's lock)

    /**
     * The lane at {@code priority} on {@code cpu} (null: not pinned), created on first use: pinned
     * to that CPU, then its handler attached (a bound thread pins itself as it starts, a pool
     * thread as it takes the lane's release).
     */
    ListenerLane lane(int priority, CpuSet cpu) {
        for (ListenerLane l : lanes) {
            if (l.priority() == priority && Objects.equals(l.cpu(), cpu)) {
                return l;
            }
        }
        if (lanes.size() == maxLanes) {
            throw new IllegalStateException("sensor " + sensor.getName() + ": listeners at " + maxLanes
                    + " different priorities or CPUs already (<sensors listeners=\"" + maxLanes + "\"> bounds the"
                    + " listeners per sensor and so the priorities and CPUs they may have)");
        }
        ListenerLane l = new ListenerLane(name + "@" + priority + (cpu == null ? "" : "/cpu" + cpu), priority, depth);
        l.pinTo(cpu);
        dispatcher.attach(l);
        l.event.addHandler(l);
        lanes.add(l);
        allLanes = lanes.toArray(new ListenerLane[0]);
        return l;
    }

    /** After a lane's listeners changed: republish the active lanes and follow the top priority. */
    void listenersChanged() {
        List<ListenerLane> act = new ArrayList<>();
        for (ListenerLane l : lanes) {
            if (l.listeners.length > 0) {
                act.add(l);
            }
        }
        act.sort((a, b) -> Integer.compare(b.priority(), a.priority()));
        active = act.toArray(new ListenerLane[0]);
        int top = act.isEmpty() ? 0 : act.get(0).priority();
        targetPriority = top;
        if (tid != 0) {
            applyPriority(tid, top);
        }
    }

    /** @return whether {@code listener} was registered here (now removed) */
    boolean removeListener(SensorEventListener listener) {
        for (ListenerLane l : lanes) {
            ListenerLane.Registration[] old = l.listeners;
            for (int i = 0; i < old.length; i++) {
                if (old[i].listener == listener) {
                    ListenerLane.Registration[] now = new ListenerLane.Registration[old.length - 1];
                    System.arraycopy(old, 0, now, 0, i);
                    System.arraycopy(old, i + 1, now, i, old.length - i - 1);
                    l.listeners = now;
                    return true;
                }
            }
        }
        return false;
    }

    int listenerCount() {
        int n = 0;
        for (ListenerLane l : lanes) {
            n += l.listeners.length;
        }
        return n;
    }

    private void applyPriority(int toTid, int priority) {
        RealtimePolicy p = policyFor == null || priority == 0 ? null : policyFor.apply(priority);
        int err = p != null && p.fifoPriority() > 0
                ? Linux.setSchedulerOf(toTid, Linux.SCHED_FIFO | Linux.SCHED_RESET_ON_FORK, p.fifoPriority())
                : Linux.setSchedulerOf(toTid, Linux.SCHED_OTHER, 0);
        priorityErrno = err;
    }

    // ---------------------------------------------------------------- the processing thread

    /** @param pin pins the calling thread to its partition's CPU; false: the kernel refused (the thread ends) */
    void start(Object lock, java.util.function.BooleanSupplier pin) {
        Thread t = Thread.ofPlatform().name(name).daemon(true).unstarted(() -> {
            synchronized (lock) {
                if (policyFor != null) {
                    // affinity and timer slack of the cell; the priority follows the listeners
                    RealtimeThreads.applyToCurrentThread(policyFor.apply(0));
                }
                tid = Linux.gettid();
                applyPriority(tid, targetPriority);
            }
            if (pin.getAsBoolean()) {
                loop();
            }
        });
        frames.consumer = t;
        thread = t;
        t.start();
    }

    private void loop() {
        FrameQueue q = frames;
        while (running) {
            if (q.isEmpty()) {
                LockSupport.park(this);
                continue;
            }
            int slot = q.peek();
            boolean emit = toEvent(slot);
            q.advance();
            if (emit) {
                events++;
                ListenerLane[] ls = active;
                for (int i = 0; i < ls.length; i++) {
                    ls[i].post(scratch);
                }
            }
        }
    }

    /** Fills {@link #scratch} from the frame in {@code slot}. @return whether it makes an event */
    private boolean toEvent(int slot) {
        FrameQueue q = frames;
        int source = q.source(slot);
        float x = q.axis(slot, 0);
        float y = q.axis(slot, 1);
        float z = q.axis(slot, 2);
        SensorEvent e = scratch;
        e.timestamp = q.time(slot);
        e.readNanos = q.readTime(slot);
        if (filter == null) {
            float scale = source == FrameQueue.ACCELEROMETER
                    ? 1f / InputEvents.ACCEL_UNITS_PER_MS2 : 1f / InputEvents.GYRO_UNITS_PER_RADS;
            e.values[0] = x * scale;
            e.values[1] = y * scale;
            e.values[2] = z * scale;
            return true;
        }
        if (source == FrameQueue.GYROSCOPE) {
            float s = 1f / InputEvents.GYRO_UNITS_PER_RADS;
            filter.gyroscope(e.timestamp, x * s, y * s, z * s);
            return false;
        }
        float s = 1f / InputEvents.ACCEL_UNITS_PER_MS2;
        filter.accelerometer(x * s, y * s, z * s, e.values);
        return filter.initialized();
    }

    void stop() throws InterruptedException {
        running = false;
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
            t.join(2_000);
        }
    }

    // ---------------------------------------------------------------- reports

    Thread thread() { return thread; }

    /** Kernel thread id of the processing thread, 0 before it started. */
    int tid() { return tid; }

    /** errno of the last priority change (0: applied). */
    int priorityErrno() { return priorityErrno; }

    long events() { return events; }

    /** "name@prio: queued q, owed f" per lane (reports; allocates). */
    String laneStates() {
        StringBuilder sb = new StringBuilder();
        for (ListenerLane l : lanesSnapshot()) {
            sb.append(l.name()).append(": queued ").append(l.queued()).append(", owed runs ")
                    .append(l.pendingFireCount()).append(", runs ").append(l.runs()).append("; ");
        }
        return sb.toString();
    }

    /**
     * Per lane that delivered, "{app} accelerometer@80/cpu1 n=1180 p50<=150.2us p99<=380.0us
     * max=512.7us": {@link ListenerLane#latency} (reports; allocates).
     */
    void appendLatencies(String app, StringBuilder sb) {
        for (ListenerLane l : lanesSnapshot()) {
            LatencyHistogram h = l.latency;
            long n = h.count();
            if (n == 0) {
                continue;
            }
            if (!sb.isEmpty()) {
                sb.append("; ");
            }
            sb.append(app).append(' ').append(Sensor.typeName(sensor.getType())).append('@').append(l.priority());
            if (l.cpu() != null) {
                sb.append("/cpu").append(l.cpu());
            }
            sb.append(" n=").append(n).append(" p50<=").append(micros(h.percentile(0.5))).append("us p99<=")
                    .append(micros(h.percentile(0.99))).append("us max=").append(micros(h.max())).append("us");
        }
    }

    private static String micros(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.1f", nanos / 1e3);
    }

    long droppedEvents() {
        long n = 0;
        for (ListenerLane l : lanesSnapshot()) {
            n += l.dropped();
        }
        return n;
    }

    long delivered() {
        long n = 0;
        for (ListenerLane l : lanesSnapshot()) {
            n += l.delivered();
        }
        return n;
    }

    long listenerFailures() {
        long n = 0;
        for (ListenerLane l : lanesSnapshot()) {
            n += l.failures();
        }
        return n;
    }

    private ListenerLane[] lanesSnapshot() {
        return allLanes;
    }
}
