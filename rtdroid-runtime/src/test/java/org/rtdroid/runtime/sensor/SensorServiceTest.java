package org.rtdroid.runtime.sensor;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.rtdroid.runtime.event.HandlerStrategy;
import org.rtdroid.runtime.memory.HeapMeter;
import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.os.RealtimePolicy;
import org.rtdroid.runtime.os.RealtimeThreads;
import org.rtdroid.runtime.sensor.sim.FallTrace;
import org.rtdroid.runtime.sensor.sim.MotionTrace;

/**
 * The sensor path from kernel-format input records to listeners: the records go through FIFOs
 * (this host has no uinput; {@link UinputDeviceTest} covers the device side where it exists) and
 * take the same reading, framing, processing, priority and dispatch code as an evdev device.
 * Every wait is a hang detector; no verdict depends on timing.
 */
class SensorServiceTest {
    private static final long HANG_MS = 30_000;

    private FifoDevices fifos;
    private SensorService service;

    @AfterEach
    void tearDown() throws Exception {
        if (service != null) {
            service.stop();
        }
        if (fifos != null) {
            fifos.close();
        }
    }

    private SensorService start(int listeners, int queue, HandlerStrategy strategy, int poolSize,
                                IntFunction<RealtimePolicy> policyFor) throws Exception {
        fifos = new FifoDevices();
        service = fifos.service("t", listeners, queue, strategy, poolSize, policyFor);
        service.start();
        return service;
    }

    /** Records what it receives (values and timestamps of the first events). */
    static final class Recorder implements SensorEventListener {
        final float[][] values = new float[4096][];
        final long[] stamps = new long[4096];
        final AtomicInteger count = new AtomicInteger();

        Recorder() {
            for (int i = 0; i < values.length; i++) {
                values[i] = new float[3];
            }
        }

        @Override
        public void onSensorChanged(SensorEvent e) {
            int i = count.get();
            if (i < values.length) {
                System.arraycopy(e.values, 0, values[i], 0, 3);
                stamps[i] = e.timestamp;
            }
            count.incrementAndGet();
        }
    }

    @Test
    void framesBecomeEventsInSiUnitsWithTheirKernelTime() throws Exception {
        start(4, 16, HandlerStrategy.BOUND, 0, null);
        SensorManager sm = service.manager(30);
        Recorder acc = new Recorder();
        Recorder gyro = new Recorder();
        assertTrue(sm.registerListener(acc, sm.getDefaultSensor(Sensor.TYPE_ACCELEROMETER), 0));
        sm.registerListener(gyro, sm.getDefaultSensor(Sensor.TYPE_GYROSCOPE), SensorManager.SENSOR_DELAY_FASTEST);
        assertNull(sm.getDefaultSensor(99));
        fifos.openWriters();
        fifos.accel.writeFrameAt(1_000_123_000L, 1_000, -2_500, 9_807);
        fifos.gyro.writeFrameAt(1_000_456_000L, 500, 0, -1_250);
        FifoDevices.await("one event each", HANG_MS, () -> acc.count.get() == 1 && gyro.count.get() == 1);
        assertArrayEquals(new float[] {1.0f, -2.5f, 9.807f}, acc.values[0], 1e-6f);
        assertEquals(1_000_123_000L, acc.stamps[0]);
        assertArrayEquals(new float[] {0.5f, 0f, -1.25f}, gyro.values[0], 1e-6f);
        assertEquals(1_000_456_000L, gyro.stamps[0]);
        assertEquals(2, service.framesRead());
        // an axis the next frame does not repeat keeps its value, as evdev reports only changes
        try (Arena a = Arena.ofConfined()) {
            MemorySegment rec = a.allocate(2L * InputEvents.RECORD_BYTES, 8);
            InputEvents.put(rec, 0, 2_000_000_000L, InputEvents.EV_ABS, InputEvents.ABS_Y, 4_000);
            InputEvents.put(rec, InputEvents.RECORD_BYTES, 2_000_000_000L, InputEvents.EV_SYN, InputEvents.SYN_REPORT, 0);
            fifos.accel.writeRaw(rec, rec.byteSize());
        }
        FifoDevices.await("second accelerometer event", HANG_MS, () -> acc.count.get() == 2);
        assertArrayEquals(new float[] {1.0f, 4.0f, 9.807f}, acc.values[1], 1e-6f);
    }

    /**
     * Each lane times its events from the frame's own stamp (the kernel's, as the frame was
     * written) to its first listener: frames stamped 5 ms before they are written are at least
     * 5 ms late at the listener, whatever this machine's load (only that lower bound is checked).
     */
    @Test
    void eachLaneTimesItsEventsFromTheFramesStamp() throws Exception {
        start(4, 64, HandlerStrategy.BOUND, 0, null);
        assertEquals("", service.deliveryLatencies());
        SensorManager sm = service.manager(40);
        Recorder acc = new Recorder();
        sm.registerListener(acc, sm.getDefaultSensor(Sensor.TYPE_ACCELEROMETER), 0);
        fifos.openWriters();
        for (int i = 0; i < 20; i++) {
            fifos.accel.writeFrameAt(System.nanoTime() - 5_000_000L, i, 0, 9_807);
        }
        FifoDevices.await("20 events", HANG_MS, () -> acc.count.get() == 20);
        String d = service.deliveryLatencies();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                "t accelerometer@40 n=20 p50<=([0-9.]+)us p99<=([0-9.]+)us max=([0-9.]+)us").matcher(d);
        assertTrue(m.matches(), d);
        double p50 = Double.parseDouble(m.group(1));
        double p99 = Double.parseDouble(m.group(2));
        double max = Double.parseDouble(m.group(3));
        assertTrue(p50 >= 5_000 && p50 <= p99 && p99 <= max, d);
    }

    /**
     * A SensorManager counts its listeners' callbacks per sensor for its component's status:
     * each callback, its delivery and response from the frame's stamp (frames stamped 5 ms before
     * they are written: at least 5 ms, only that bound is checked), its CPU time, and the callbacks
     * that used more CPU time than the component's cost: all of them with a 1 ns cost, none with 1 s.
     */
    @Test
    void aManagersListenerCallbacksAreCountedForItsComponent() throws Exception {
        start(4, 64, HandlerStrategy.BOUND, 0, null);
        SensorManager cheap = service.manager(40);
        SensorManager slow = service.manager(30);
        cheap.costNanos(1_000_000_000L);
        slow.costNanos(1);
        assertEquals(0, cheap.listenerStats().length);
        Recorder fast = new Recorder();
        SensorEventListener spinning = e -> {
            long until = System.nanoTime() + 50_000;
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
        };
        cheap.registerListener(fast, cheap.getDefaultSensor(Sensor.TYPE_ACCELEROMETER), 0);
        slow.registerListener(spinning, slow.getDefaultSensor(Sensor.TYPE_ACCELEROMETER), 0);
        fifos.openWriters();
        for (int i = 0; i < 10; i++) {
            fifos.accel.writeFrameAt(System.nanoTime() - 5_000_000L, i, 0, 9_807);
        }
        ListenerStats c = cheap.listenerStats()[0];
        ListenerStats s = slow.listenerStats()[0];
        FifoDevices.await("10 callbacks of each", HANG_MS, () -> c.callbacks() == 10 && s.callbacks() == 10);
        assertEquals(10, fast.count.get());
        for (ListenerStats x : new ListenerStats[] {c, s}) {
            assertTrue(x.worstDeliveryNanos() >= 5_000_000L && x.worstResponseNanos() >= x.worstDeliveryNanos(),
                    x.worstDeliveryNanos() + " / " + x.worstResponseNanos());
            assertTrue(x.worstCpuNanos() > 0, "CPU time measured: " + x.worstCpuNanos());
        }
        assertEquals(0, c.overruns());
        assertEquals(0, c.lastOverrun());
        assertEquals(10, s.overruns());
        assertEquals(10, s.lastOverrun());
        // registering again (another period) keeps counting in the same place
        cheap.registerListener(fast, cheap.getDefaultSensor(Sensor.TYPE_ACCELEROMETER), 0);
        assertEquals(1, cheap.listenerStats().length);
        assertSame(c, cheap.listenerStats()[0]);
    }

    /** Malformed, unknown and short input is counted and skipped; the path keeps delivering. */
    @Test
    void badRecordsAreCountedNotFatal() throws Exception {
        start(4, 16, HandlerStrategy.BOUND, 0, null);
        SensorManager sm = service.manager(30);
        Recorder acc = new Recorder();
        sm.registerListener(acc, sm.getDefaultSensor(Sensor.TYPE_ACCELEROMETER), 0);
        fifos.openWriters();
        long t = 5_000_000_000L;
        int r = InputEvents.RECORD_BYTES;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment b = a.allocate(14L * r, 8);
            int i = 0;
            InputEvents.put(b, i++ * r, t, InputEvents.EV_ABS, InputEvents.ABS_X, 100);
            InputEvents.put(b, i++ * r, t, InputEvents.EV_SYN, InputEvents.SYN_REPORT, 0);    // event 1: x = 0.1
            InputEvents.put(b, i * r, t, InputEvents.EV_ABS, InputEvents.ABS_X, 777);
            b.set(JAVA_LONG, (long) i++ * r + InputEvents.USEC_OFFSET, 2_000_000L);            // malformed: tv_usec >= 1e6
            InputEvents.put(b, i++ * r, t, InputEvents.EV_ABS, InputEvents.ABS_RX, 5);         // unknown: not an accelerometer axis
            InputEvents.put(b, i++ * r, t, 0x55, 0, 0);                                         // unknown: no such type
            InputEvents.put(b, i++ * r, t, InputEvents.EV_SYN, 7, 0);                           // unknown SYN code
            InputEvents.put(b, i++ * r, t, InputEvents.EV_ABS, InputEvents.ABS_X, 200);
            InputEvents.put(b, i++ * r, t, InputEvents.EV_SYN, InputEvents.SYN_DROPPED, 0);    // kernel overflow
            InputEvents.put(b, i++ * r, t, InputEvents.EV_ABS, InputEvents.ABS_Y, 300);
            InputEvents.put(b, i++ * r, t, InputEvents.EV_SYN, InputEvents.SYN_REPORT, 0);    // skipped (cut frame)
            InputEvents.put(b, i++ * r, t + 1000, InputEvents.EV_ABS, InputEvents.ABS_Z, 400);
            InputEvents.put(b, i++ * r, t + 1000, InputEvents.EV_SYN, InputEvents.SYN_REPORT, 0); // event 2
            fifos.accel.writeRaw(b, (long) i * r);
            fifos.accel.writeRaw(b, 10);                                                        // 10 bytes, then the stream ends
        }
        fifos.accel.close();
        fifos.accel = null;
        FifoDevices.await("the short record is counted", HANG_MS, () -> service.shortRecords() == 1);
        // The listener's callbacks run on its lane, after the processing thread has moved on to
        // the short record: wait for them before counting.
        FifoDevices.await("both good events delivered", HANG_MS, () -> acc.count.get() >= 2);
        assertEquals(2, acc.count.get());
        assertArrayEquals(new float[] {0.1f, 0f, 0f}, acc.values[0], 1e-6f);
        assertArrayEquals(new float[] {0.2f, 0.3f, 0.4f}, acc.values[1], 1e-6f);
        assertEquals(1, service.malformedRecords());
        assertEquals(3, service.unknownEvents());
        assertEquals(1, service.syncDropped());
        // the device is opened again and delivers
        fifos.accel = org.rtdroid.runtime.sensor.sim.InputEventWriter.open("accel", fifos.accelPath.toString(), InputEvents.ABS_X);
        fifos.accel.writeFrameAt(t + 2000, 1, 2, 3);
        FifoDevices.await("an event after the bad input", HANG_MS, () -> acc.count.get() == 3);
        assertArrayEquals(new float[] {0.001f, 0.002f, 0.003f}, acc.values[2], 1e-6f);
        assertTrue(service.deviceOpens() >= 3);
    }

    @Test
    void capacityOverflowIsNamed() throws Exception {
        start(2, 4, HandlerStrategy.BOUND, 0, null);
        SensorManager a = service.manager(10);
        SensorManager b = service.manager(20);
        SensorManager c = service.manager(30);
        Sensor acc = a.getDefaultSensor(Sensor.TYPE_ACCELEROMETER);
        a.registerListener(e -> { }, acc, 0);
        SensorEventListener second = e -> { };
        b.registerListener(second, acc, 0);
        IllegalStateException full = assertThrows(IllegalStateException.class, () -> c.registerListener(e -> { }, acc, 0));
        assertTrue(full.getMessage().contains("<sensors listeners=\"2\">"), full.getMessage());
        assertTrue(full.getMessage().contains("accelerometer"), full.getMessage());
        // registering the same listener again replaces it rather than taking a place
        b.registerListener(second, acc, SensorManager.SENSOR_DELAY_GAME);
        assertEquals(2, service.listeners(Sensor.TYPE_ACCELEROMETER));
        // a third priority has no lane left even after a listener left: the lanes are bounded too
        b.unregisterListener(second);
        IllegalStateException lanes = assertThrows(IllegalStateException.class, () -> c.registerListener(e -> { }, acc, 0));
        assertTrue(lanes.getMessage().contains("different priorities"), lanes.getMessage());
        assertThrows(IllegalArgumentException.class, () -> service.manager(0));
        assertThrows(IllegalArgumentException.class, () -> a.registerListener(e -> { }, acc, -1));
    }

    /**
     * The processing thread runs at the highest priority among its sensor's current listeners, as
     * the kernel reports it (sched_getparam by tid), and SCHED_OTHER once none is left.
     */
    @Test
    void processingThreadFollowsItsListenersPriority() throws Exception {
        assumeTrue(fifoPermitted(), "SCHED_FIFO not permitted here (needs root or CAP_SYS_NICE)");
        start(4, 8, HandlerStrategy.POOLED, 1, RealtimePolicy::fifo);
        int acc = Sensor.TYPE_ACCELEROMETER;
        int gyro = Sensor.TYPE_GYROSCOPE;
        // each sensor's processing thread starts on its own; its tid is 0 until it has run
        FifoDevices.await("processing threads started", HANG_MS,
                () -> service.processingTid(acc) != 0 && service.processingTid(gyro) != 0);
        int tid = service.processingTid(acc);
        assertEquals(Linux.SCHED_OTHER, Linux.policyOf(tid), "no listener yet");
        SensorManager low = service.manager(20);
        SensorManager high = service.manager(45);
        SensorEventListener l1 = e -> { };
        SensorEventListener l2 = e -> { };
        SensorEventListener l3 = e -> { };
        low.registerListener(l1, low.getDefaultSensor(acc), 0);
        assertKernelPriority(tid, 20);
        high.registerListener(l2, high.getDefaultSensor(acc), 0);
        assertKernelPriority(tid, 45);
        low.registerListener(l3, low.getDefaultSensor(acc), 0);
        assertKernelPriority(tid, 45);
        high.unregisterListener(l2);
        assertKernelPriority(tid, 20);
        // another sensor's listeners do not move this thread
        high.registerListener(l2, high.getDefaultSensor(gyro), 0);
        assertKernelPriority(tid, 20);
        assertKernelPriority(service.processingTid(gyro), 45);
        low.unregisterListener(l1);
        low.unregisterListener(l3, low.getDefaultSensor(acc));
        assertEquals(Linux.SCHED_OTHER, Linux.policyOf(tid), "no listener left");
        assertEquals(0, Linux.priorityOf(tid));
        assertEquals(0, service.processingPriorityErrno(acc));
    }

    private static void assertKernelPriority(int tid, int priority) {
        assertEquals(Linux.SCHED_FIFO, Linux.policyOf(tid), "policy of tid " + tid);
        assertEquals(priority, Linux.priorityOf(tid), "priority of tid " + tid);
    }

    static boolean fifoPermitted() throws InterruptedException {
        boolean[] ok = new boolean[1];
        Thread t = Thread.ofPlatform().start(() -> ok[0] = RealtimeThreads.applyToCurrentThread(RealtimePolicy.fifo(1)).isFifo());
        t.join();
        return ok[0];
    }

    /**
     * Listeners of mixed priority, registered lowest first. Each callback runs at its own
     * listener's priority as the kernel reports it (where SCHED_FIFO is permitted). Pooled with
     * one thread, every event reaches the higher-priority listener before the lower one: the
     * pool's queue orders the lanes by priority. (Bound lanes are ordered by the kernel alone; a
     * JVM safepoint resumes threads in no particular order, so order is not asserted for them.)
     */
    @ParameterizedTest
    @EnumSource(HandlerStrategy.class)
    void listenersRunAtTheirPriorityHighestFirst(HandlerStrategy strategy) throws Exception {
        boolean fifo = fifoPermitted();
        start(4, 256, strategy, 1, fifo ? RealtimePolicy::fifo : null);
        int frames = 200;
        AtomicInteger next = new AtomicInteger();
        int[][] seenAt = new int[3][frames];
        int[][] kernelPriority = new int[3][frames];
        SensorEventListener[] ls = new SensorEventListener[3];
        int[] priorities = {15, 25, 35};
        for (int k = 0; k < 3; k++) {
            int me = k;
            int[] received = new int[1];
            ls[k] = e -> {
                int at = next.getAndIncrement();
                kernelPriority[me][received[0]] = Linux.currentPriority();
                seenAt[me][received[0]++] = at;
            };
        }
        for (int k = 0; k < 3; k++) { // lowest priority registers first
            SensorManager sm = service.manager(priorities[k]);
            sm.registerListener(ls[k], sm.getDefaultSensor(Sensor.TYPE_ACCELEROMETER), 0);
        }
        fifos.openWriters();
        for (int i = 0; i < frames; i++) {
            fifos.accel.writeFrameAt(1_000_000_000L + i * 1_000_000L, i, 0, 0);
        }
        FifoDevices.await("every event delivered to all three", HANG_MS, () -> next.get() == 3 * frames);
        assertEquals(0, service.droppedFrames() + service.droppedEvents());
        for (int i = 0; i < frames; i++) {
            if (fifo) {
                for (int k = 0; k < 3; k++) {
                    assertEquals(priorities[k], kernelPriority[k][i], "kernel priority of listener " + priorities[k] + ", event " + i);
                }
            }
            if (strategy == HandlerStrategy.POOLED) {
                assertTrue(seenAt[2][i] < seenAt[1][i] && seenAt[1][i] < seenAt[0][i],
                        "event " + i + " reached priority 35 at " + seenAt[2][i] + ", 25 at " + seenAt[1][i] + ", 15 at " + seenAt[0][i]);
            }
        }
    }

    /**
     * Two components at one priority on two CPUs of a partitioned cell: each one's listener runs
     * on its own component's CPU, as the kernel reports it from inside the callback (one lane per
     * priority and CPU), for every event; bound lane threads are pinned from their start (read
     * back by thread id), pool threads as they take a lane's release.
     */
    @ParameterizedTest
    @EnumSource(HandlerStrategy.class)
    void listenersRunOnTheirComponentsCpu(HandlerStrategy strategy) throws Exception {
        CpuSet allowed = Linux.currentAffinity();
        assumeTrue(allowed.contains(0) && allowed.contains(1), "needs CPUs 0 and 1 (this process may run on " + allowed + ")");
        CpuSet cell = CpuSet.of(0, 1);
        start(4, 256, strategy, 1, p -> new RealtimePolicy(fifoPermittedQuietly() ? p : 0, cell, 1));
        int frames = 100;
        int[] cpus = {0, 1};
        CpuSet[][] seen = new CpuSet[2][frames];
        AtomicInteger[] received = {new AtomicInteger(), new AtomicInteger()};
        for (int k = 0; k < 2; k++) {
            int me = k;
            SensorManager sm = service.manager(30, CpuSet.of(cpus[k]));
            sm.registerListener(e -> {
                int i = received[me].get();
                if (i < frames) {
                    seen[me][i] = Linux.currentAffinity();
                }
                received[me].incrementAndGet();
            }, sm.getDefaultSensor(Sensor.TYPE_ACCELEROMETER), 0);
        }
        fifos.openWriters();
        for (int i = 0; i < frames; i++) {
            fifos.accel.writeFrameAt(1_000_000_000L + i * 1_000_000L, i, 0, 0);
        }
        FifoDevices.await("every event delivered to both", HANG_MS,
                () -> received[0].get() == frames && received[1].get() == frames, service::laneStates);
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < frames; i++) {
                assertEquals(CpuSet.of(cpus[k]), seen[k][i], "CPU of the listener on CPU " + cpus[k] + ", event " + i);
            }
        }
        if (strategy == HandlerStrategy.BOUND) {
            int[] tids = service.dispatcher(Sensor.TYPE_ACCELEROMETER).tids();
            assertEquals(2, tids.length, "one lane per CPU at the one priority");
            java.util.Set<CpuSet> lanes = new java.util.HashSet<>();
            for (int tid : tids) {
                assertTrue(tid > 0);
                lanes.add(Linux.affinityOf(tid));
            }
            assertEquals(java.util.Set.of(CpuSet.of(0), CpuSet.of(1)), lanes,
                    "the lane threads' affinity as the kernel has it");
        }
    }

    private static boolean fifoPermittedQuietly() {
        try {
            return fifoPermitted();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The fall trace through the FIFOs at its own timestamps: the sensors see the fall, orientation the tip-over. */
    @Test
    void fallTraceThroughTheInputPath() throws Exception {
        start(4, 1024, HandlerStrategy.POOLED, 2, null);
        SensorManager sm = service.manager(40);
        Recorder acc = new Recorder();
        Recorder orient = new Recorder();
        sm.registerListener(acc, sm.getDefaultSensor(Sensor.TYPE_ACCELEROMETER), 0);
        sm.registerListener(orient, sm.getDefaultSensor(Sensor.TYPE_ORIENTATION), 0);
        fifos.openWriters();
        MotionTrace trace = FallTrace.generate(100);
        long t0 = 10_000_000_000L;
        for (int i = 0; i < trace.size(); i++) {
            long t = t0 + trace.offsetNanos(i);
            fifos.accel.writeFrameAt(t, trace.accelUnits(i, 0), trace.accelUnits(i, 1), trace.accelUnits(i, 2));
            fifos.gyro.writeFrameAt(t, trace.gyroUnits(i, 0), trace.gyroUnits(i, 1), trace.gyroUnits(i, 2));
        }
        int n = trace.size();
        FifoDevices.await("every sample delivered", HANG_MS, () -> acc.count.get() == n && orient.count.get() == n);
        assertEquals(0, service.droppedFrames() + service.droppedEvents());
        double min = Double.MAX_VALUE;
        double max = 0;
        for (int i = 0; i < n; i++) {
            float[] v = acc.values[i];
            double g = Math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) / InputEvents.STANDARD_GRAVITY;
            min = Math.min(min, g);
            max = Math.max(max, g);
        }
        assertTrue(min < 0.3, "free fall seen: min |a| = " + min + " g");
        assertTrue(max > 3.0, "impact seen: max |a| = " + max + " g");
        float[] upright = orient.values[100]; // 1 s: standing
        float[] lying = orient.values[n - 1];
        assertEquals(0, upright[1], 1.0, "pitch standing");
        assertEquals(0, upright[2], 1.0, "roll standing");
        assertEquals(-90, lying[1], 3.0, "pitch lying on the side");
        assertEquals(t0 + trace.offsetNanos(n - 1), orient.stamps[n - 1]);
    }

    /** After warm-up the polling, processing and dispatch threads allocate nothing per event. */
    @ParameterizedTest
    @EnumSource(HandlerStrategy.class)
    void noHeapBytesPerEventAfterWarmUp(HandlerStrategy strategy) throws Exception {
        assumeTrue(HeapMeter.supported(), "this JVM cannot count per-thread allocation");
        start(4, 64, strategy, 2, null);
        SensorManager hi = service.manager(40);
        SensorManager lo = service.manager(20);
        AtomicInteger got = new AtomicInteger();
        SensorEventListener count = e -> got.incrementAndGet();
        hi.registerListener(count, hi.getDefaultSensor(Sensor.TYPE_ACCELEROMETER), 0);
        lo.registerListener(e -> got.incrementAndGet(), lo.getDefaultSensor(Sensor.TYPE_ORIENTATION), 0);
        fifos.openWriters();
        long[] t = {1_000_000_000L};
        int[] sent = {0};
        Runnable window = () -> {
            for (int i = 0; i < 5_000; i++) {
                t[0] += 1_000_000L;
                fifos.accel.writeFrameAt(t[0], 100 + (i & 7), 0, 9_807);
                fifos.gyro.writeFrameAt(t[0], 0, i & 3, 0);
                sent[0]++;
                if ((i & 15) == 15) {
                    int want = 2 * sent[0];
                    try {
                        FifoDevices.await("listeners catch up", HANG_MS, () -> got.get() >= want,
                                () -> "got " + got.get() + " of " + want + "; " + counters());
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                }
            }
        };
        for (int w = 0; w < 6; w++) {
            window.run(); // warm-up: 30,000 frames per device, long enough for C2
        }
        Thread[] threads = rtThreads();
        long bytes = -1;
        StringBuilder who = new StringBuilder();
        for (int w = 0; w < 3 && bytes != 0; w++) { // one clean window of up to three
            long[] before = new long[threads.length];
            for (int i = 0; i < threads.length; i++) {
                before[i] = HeapMeter.threadAllocatedBytes(threads[i].threadId());
            }
            window.run();
            bytes = 0;
            who.setLength(0);
            for (int i = 0; i < threads.length; i++) {
                long b = HeapMeter.threadAllocatedBytes(threads[i].threadId()) - before[i];
                bytes += b;
                if (b != 0) {
                    who.append(' ').append(threads[i].getName()).append('=').append(b);
                }
            }
        }
        assertEquals(0, bytes, strategy + ": heap bytes of the polling, processing and dispatch threads over 5,000 frames"
                + " per device:" + who);
        // (no assertion on drops: the gyroscope's processing thread has no listener to wait for,
        // and on a loaded machine its queue may overflow, which is counted, not allocated)
        assertEquals(0, service.listenerFailures());
    }

    private String counters() {
        return "frames " + service.framesRead() + ", dropped frames " + service.droppedFrames() + ", dropped events "
                + service.droppedEvents() + ", delivered " + service.delivered() + ", events acc/gyro/orient "
                + service.events(Sensor.TYPE_ACCELEROMETER) + "/" + service.events(Sensor.TYPE_GYROSCOPE) + "/"
                + service.events(Sensor.TYPE_ORIENTATION) + ", failures " + service.listenerFailures() + "; lanes: " + service.laneStates();
    }

    private Thread[] rtThreads() {
        java.util.List<Thread> ts = new java.util.ArrayList<>();
        ts.add(service.pollingThread());
        for (int type : new int[] {Sensor.TYPE_ACCELEROMETER, Sensor.TYPE_GYROSCOPE, Sensor.TYPE_ORIENTATION}) {
            ts.add(service.processingThread(type));
            ts.addAll(java.util.List.of(service.dispatcher(type).threads()));
        }
        return ts.toArray(new Thread[0]);
    }

    @Test
    void theSensorsAreTheSameObjects() throws Exception {
        start(1, 1, HandlerStrategy.BOUND, 0, null);
        assertSame(service.manager(5).getDefaultSensor(Sensor.TYPE_GYROSCOPE), service.manager(6).getDefaultSensor(Sensor.TYPE_GYROSCOPE));
        assertEquals("orientation", Sensor.typeName(Sensor.TYPE_ORIENTATION));
    }
}
