package org.rtdroid.android.cell;

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
}
