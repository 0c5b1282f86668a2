package org.rtdroid.android.cell;

import org.rtdroid.android.cell.am.CellActivityManager;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import android.app.Application;
import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;
import android.content.IntentFilter;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.annotation.Config;
import org.robolectric.annotation.LooperMode;
import org.rtdroid.android.proxy.ProxyContract;

/**
 * The real-time delivery thread of the cell's broadcast queue ({@code broadcast-rt}) allocates
 * nothing of its own after warm-up: its heap bytes (the JVM's per-thread allocation counter) over
 * a window of real-time broadcasts, while two low-priority senders keep the normal lane and the
 * guard busy, less the bytes it allocated inside the framework's {@code Handler.postAtFrontOfQueue}
 * (which the queue counts around each hand-over: Robolectric's MessageQueue shadow allocates
 * there, a device's MessageQueue does not), are zero in one clean window of up to three (a window
 * may catch a one-time event of the JVM, as in the runtime's ZeroAllocationTest). What the Android
 * API makes allocate elsewhere is not counted here: the sender's Intent and the queue's copy of it
 * (sender's thread), and the receivers' resolution and the receivers themselves (main looper). The Android cell does not
 * import the runtime: this is the runtime's per-thread counting pattern, copied. Run by
 * {@link RealtimeDeliveryAllocationTest}; every wait is a hang detector, no verdict depends on timing.
 */
@RunWith(RobolectricTestRunner.class)
@Config(sdk = Main.SUPPORTED_SDK, manifest = Config.NONE,
        shadows = {CellContextImplShadow.class, CellLogShadow.class})
@LooperMode(LooperMode.Mode.INSTRUMENTATION_TEST)
public class RealtimeDeliveryAllocationSandbox {
    static final String RT = "org.rtdroid.test.RT_ALLOC";
    static final String LOW = "org.rtdroid.test.LOW_ALLOC";
    static final int WARM_UP = 3_000;
    static final int WINDOW = 1_000;
    static final int WINDOWS = 3;
    /** Local broadcasts per window: within the LocalBroadcastManager's capacity (256) with the gate's. */
    static final int LOCAL_WINDOW = 200;
    static final long HANG_NANOS = 60_000_000_000L;

    private Application app;
    private CellActivityManager am;
    private final AtomicLong rtDelivered = new AtomicLong();
    private final AtomicLong lowDelivered = new AtomicLong();

    /** Allocates nothing: counts. */
    private final BroadcastReceiver counter = new BroadcastReceiver() {
        @Override
        public void onReceive(Context c, Intent i) {
            (RT.equals(i.getAction()) ? rtDelivered : lowDelivered).incrementAndGet();
        }
    };

    @Before
    public void cell() throws Exception {
        app = RuntimeEnvironment.getApplication();
        am = new CellActivityManager(app, Files.createTempDirectory("bcast-alloc"), null);
        CellContextImplShadow.attach(am);
        am.broadcasts.start();
        IntentFilter f = new IntentFilter(RT);
        f.addAction(LOW);
        app.registerReceiver(counter, f);
    }

    @After
    public void down() {
        am.broadcasts.stop();
        CellContextImplShadow.detach();
    }

    static long allocatedBytes(Thread t) {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getThreadAllocatedBytes(t.threadId());
    }

    /** Sends {@code n} real-time broadcasts (priority 80), each once the previous one was delivered. */
    private void sendRealtime(Intent[] intents, int n) {
        for (int k = 0; k < n; k++) {
            long before = rtDelivered.get();
            app.sendBroadcast(intents[k % intents.length]);
            long deadline = System.nanoTime() + HANG_NANOS;
            while (rtDelivered.get() == before) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("real-time broadcast " + k + " not delivered; queue " + am.broadcasts.statsJson());
                }
                Thread.yield();
            }
        }
    }

    @Test
    public void theRealtimeDeliveryThreadAllocatesNothingAfterWarmUpUnderLowPrioritySenders() throws Exception {
        Thread delivery = am.broadcasts.realtimeDeliveryThread();
        assertNotNull(delivery);
        assertEquals("broadcast-rt", delivery.getName());
        Intent[] intents = new Intent[16];
        for (int i = 0; i < intents.length; i++) {
            intents[i] = new Intent(RT).putExtra(ProxyContract.EXTRA_SENDER_PRIORITY, 80);
        }
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> lowSenders = new ArrayList<>();
        for (int s = 0; s < 2; s++) {
            Thread t = new Thread(() -> {
                Intent low = new Intent(LOW).putExtra(ProxyContract.EXTRA_SENDER_PRIORITY, 10);
                while (!stop.get()) {
                    if (am.broadcasts.queued() < 32) { // below the lanes' capacity: nothing dropped
                        app.sendBroadcast(low);
                    } else {
                        Thread.yield();
                    }
                }
            }, "low-sender-" + s);
            t.start();
            lowSenders.add(t);
        }
        long[] own = new long[WINDOWS];
        long[] handovers = new long[WINDOWS];
        long[] handoverBytes = new long[WINDOWS];
        try {
            sendRealtime(intents, WARM_UP);
            for (int w = 0; w < WINDOWS; w++) {
                long before = allocatedBytes(delivery);
                long handedBefore = am.broadcasts.realtimeHandovers();
                long inPostBefore = am.broadcasts.realtimeHandoverBytes();
                sendRealtime(intents, WINDOW);
                handoverBytes[w] = am.broadcasts.realtimeHandoverBytes() - inPostBefore;
                own[w] = allocatedBytes(delivery) - before - handoverBytes[w];
                handovers[w] = am.broadcasts.realtimeHandovers() - handedBefore;
                if (own[w] == 0 && handovers[w] > 0) {
                    break;
                }
            }
        } finally {
            stop.set(true);
            for (Thread t : lowSenders) {
                t.join();
            }
        }
        assertTrue("low-priority senders were delivered meanwhile", lowDelivered.get() > 0);
        assertEquals("dropped", 0, am.broadcasts.dropped());
        boolean clean = false;
        int ran = 0;
        while (ran < WINDOWS && !clean) {
            clean = own[ran] == 0 && handovers[ran] > 0;
            ran++;
        }
        own = java.util.Arrays.copyOf(own, ran);
        handovers = java.util.Arrays.copyOf(handovers, ran);
        handoverBytes = java.util.Arrays.copyOf(handoverBytes, ran);
        assertTrue("broadcast-rt allocated outside the framework's post in every window of " + WINDOW
                + " real-time broadcasts: " + java.util.Arrays.toString(own) + " bytes (hand-overs "
                + java.util.Arrays.toString(handovers) + ", bytes inside Handler.postAtFrontOfQueue "
                + java.util.Arrays.toString(handoverBytes) + ")", clean);
        System.out.println("broadcast-rt: hand-overs " + java.util.Arrays.toString(handovers) + ", own bytes "
                + java.util.Arrays.toString(own) + ", bytes inside the framework's post " + java.util.Arrays.toString(handoverBytes));
    }

    /** Records the main looper's allocated bytes at the first and the last of {@code count} runs. */
    static final class LooperMeter {
        final int count;
        final long[] firstAndLast = new long[2];
        final AtomicLong seen = new AtomicLong();

        LooperMeter(int count) {
            this.count = count;
        }

        /** On the main looper; allocates nothing. */
        void mark() {
            long n = seen.get() + 1; // only the main looper writes it while a window runs
            if (n == 1) {
                firstAndLast[0] = allocatedBytes(Thread.currentThread());
            } else if (n == count) {
                firstAndLast[1] = allocatedBytes(Thread.currentThread());
            }
            seen.set(n); // after the reading, which the test thread then sees
        }

        long await(String what) {
            long deadline = System.nanoTime() + HANG_NANOS;
            while (seen.get() < count) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(what + " not run: " + seen.get() + " of " + count);
                }
                Thread.yield();
            }
            return firstAndLast[1] - firstAndLast[0];
        }
    }

    /**
     * The app library's LocalBroadcastManager delivers its queued real-time broadcasts on the main
     * looper allocating nothing of its own. The main looper's own message handling allocates in
     * this sandbox (Robolectric's MessageQueue shadow: a few dozen bytes per message; a device's
     * looper does not), so the window compares like with like: with the looper held by a gate, the
     * looper's heap bytes from the first to the last of {@link #LOCAL_WINDOW} queued front-of-queue
     * messages that only count, then the same for {@link #LOCAL_WINDOW} queued real-time local
     * broadcasts (one front-of-queue message each, delivered to a receiver that only counts): equal
     * bytes in one clean window of up to three. The sends (the sender's Intent, the matched
     * receivers, the queued record) are the sender's thread's.
     */
    @Test
    public void localBroadcastsAreDeliveredOnTheMainLooperAllocatingNothingOfTheirOwn() throws Exception {
        org.rtdroid.android.content.LocalBroadcastManager lbm = org.rtdroid.android.content.LocalBroadcastManager.getInstance(app);
        android.os.Handler main = new android.os.Handler(android.os.Looper.getMainLooper());
        String gateAction = "org.rtdroid.test.LOCAL_ALLOC_GATE";
        Intent rt = new Intent(RT).putExtra(org.rtdroid.android.content.LocalBroadcastManager.EXTRA_SENDER_PRIORITY, 80);
        LooperMeter[] meter = new LooperMeter[1];
        BroadcastReceiver counting = new BroadcastReceiver() {
            @Override
            public void onReceive(Context c, Intent i) {
                meter[0].mark();
            }
        };
        Runnable countingMessage = () -> meter[0].mark();
        lbm.registerReceiver(counting, new IntentFilter(RT));
        long[] looperOnly = new long[WINDOWS];
        long[] local = new long[WINDOWS];
        int ran = 0;
        SandboxGate gate = null;
        try {
            for (int round = 0; round < 3 + WINDOWS; round++) { // three warm-up rounds, then the windows
                long[] bytes = new long[2];
                for (int kind = 0; kind < 2; kind++) {
                    gate = new SandboxGate();
                    lbm.registerReceiver(gate, new IntentFilter(gateAction));
                    lbm.sendBroadcast(new Intent(gateAction));
                    gate.entered.await();
                    meter[0] = new LooperMeter(LOCAL_WINDOW);
                    for (int k = 0; k < LOCAL_WINDOW; k++) {
                        if (kind == 0) {
                            main.postAtFrontOfQueue(countingMessage);
                        } else {
                            lbm.sendBroadcast(rt);
                        }
                    }
                    gate.open.countDown();
                    bytes[kind] = meter[0].await(kind == 0 ? "counting messages" : "local broadcasts");
                    lbm.unregisterReceiver(gate);
                }
                if (round >= 3) {
                    looperOnly[ran] = bytes[0];
                    local[ran] = bytes[1];
                    ran++;
                    if (bytes[0] == bytes[1]) {
                        break;
                    }
                }
            }
        } finally {
            if (gate != null) {
                gate.open.countDown();
            }
            lbm.unregisterReceiver(counting);
        }
        assertEquals(0, lbm.droppedCount());
        looperOnly = java.util.Arrays.copyOf(looperOnly, ran);
        local = java.util.Arrays.copyOf(local, ran);
        System.out.println("main looper, " + LOCAL_WINDOW + " messages: counting only " + java.util.Arrays.toString(looperOnly)
                + " bytes, local real-time broadcasts " + java.util.Arrays.toString(local) + " bytes");
        assertEquals("main looper bytes over " + LOCAL_WINDOW + " local real-time broadcasts against as many messages that"
                + " only count: " + java.util.Arrays.toString(local) + " vs " + java.util.Arrays.toString(looperOnly),
                looperOnly[ran - 1], local[ran - 1]);
    }
}
