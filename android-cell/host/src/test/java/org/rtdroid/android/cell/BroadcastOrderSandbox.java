package org.rtdroid.android.cell;

import org.rtdroid.android.cell.am.CellActivityManager;
import org.rtdroid.android.cell.broadcast.BroadcastQueue;
import org.rtdroid.android.cell.os.RealtimeScheduling;
import org.rtdroid.android.cell.pm.Apps;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.robolectric.Shadows.shadowOf;

import android.app.Application;
import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;
import android.content.IntentFilter;
import android.content.pm.ApplicationInfo;
import android.content.pm.PackageInfo;
import android.os.Bundle;
import android.os.Looper;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.annotation.Config;
import org.robolectric.annotation.LooperMode;
import org.rtdroid.android.proxy.ProxyContract;
import org.rtdroid.android.proxy.RtInbound;

/**
 * The cell's real broadcast path (Context.sendBroadcast → the ContextImpl shadow → BroadcastQueue
 * → its delivery threads → the main looper → registered receivers), in the framework sandbox.
 * Order is made deterministic by a gate: a receiver that blocks the main looper (and so the
 * delivery in progress) on a latch while the senders fill the queue; senders are joined (their
 * sends are queued when sendBroadcast returns), the proxy's hand-offs are awaited on the queue's
 * own count; never a sleep. Run by {@link BroadcastOrderTest}.
 */
@RunWith(RobolectricTestRunner.class)
@Config(sdk = Main.SUPPORTED_SDK, manifest = Config.NONE,
        shadows = {CellContextImplShadow.class, CellLogShadow.class})
@LooperMode(LooperMode.Mode.INSTRUMENTATION_TEST)
public class BroadcastOrderSandbox {
    static final String GATE = "org.rtdroid.test.GATE";
    static final String ORDER = "org.rtdroid.test.ORDER";
    static final String RT_CHANNEL = "order";

    private Application app;
    private CellActivityManager am;
    /** "label@priority", in delivery order; written on the main looper only. */
    private final List<String> delivered = Collections.synchronizedList(new ArrayList<>());
    private final List<String> wrongThread = Collections.synchronizedList(new ArrayList<>());
    private CountDownLatch expected;

    private final SandboxGate gate = new SandboxGate();

    private final BroadcastReceiver recorder = new BroadcastReceiver() {
        @Override
        public void onReceive(Context c, Intent i) {
            if (Looper.myLooper() != Looper.getMainLooper()) {
                wrongThread.add(Thread.currentThread().getName());
            }
            delivered.add(i.getStringExtra("label") != null ? i.getStringExtra("label") : "rt:" + i.getLongExtra(ProxyContract.EXTRA_SEQ, -1)
                    + "@" + i.getIntExtra(ProxyContract.EXTRA_SENDER_PRIORITY, -1));
            if (expected != null) {
                expected.countDown();
            }
        }
    };

    @Before
    public void cell() throws Exception {
        app = RuntimeEnvironment.getApplication();
        am = new CellActivityManager(app, Files.createTempDirectory("bcast-apps"), null);
        CellContextImplShadow.attach(am);
        am.broadcasts.start();
        app.registerReceiver(gate, new IntentFilter(GATE));
        app.registerReceiver(recorder, new IntentFilter(ORDER));
    }

    @After
    public void down() {
        gate.open.countDown();
        am.broadcasts.stop();
        CellContextImplShadow.detach();
    }

    private void closeGateBehindOneDelivery() throws InterruptedException {
        app.sendBroadcast(new Intent(GATE));
        gate.entered.await();
    }

    private static Intent order(String label, int priority) {
        return new Intent(ORDER).putExtra("label", label + "@" + priority)
                .putExtra(ProxyContract.EXTRA_SENDER_PRIORITY, priority);
    }

    private void sendInParallel(int[] priorities, int perSender) throws InterruptedException {
        SandboxGate.sendInParallel(priorities, perSender, app::sendBroadcast, ORDER);
    }

    /**
     * The real-time path's scheduling as the kernel reports it (/proc): the delivery thread at
     * SCHED_FIFO; the main looper lifted to SCHED_FIFO as soon as a real-time broadcast waits
     * behind the (low-priority) receiver it runs, running the real-time one so, and back at
     * SCHED_OTHER for the normal one after it. Without CAP_SYS_NICE (the boards run the cell as
     * root) the queue reports SCHED_OTHER and nothing is lifted: checked instead.
     */
    @Test
    public void theRealtimePathRunsAtSchedFifoAndTheLooperDropsBackAfterIt() throws Exception {
        List<String> policies = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch both = new CountDownLatch(2);
        BroadcastReceiver policy = new BroadcastReceiver() {
            @Override
            public void onReceive(Context c, Intent i) {
                policies.add(i.getStringExtra("label") + ": " + RealtimeScheduling.describe(RealtimeScheduling.tid()));
                both.countDown();
            }
        };
        app.registerReceiver(policy, new IntentFilter("org.rtdroid.test.POLICY"));
        closeGateBehindOneDelivery();
        long deadline = System.nanoTime() + 60_000_000_000L; // hang detector only
        while (am.broadcasts.realtimeScheduling().equals("not started") && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        int[] tids = am.broadcasts.realtimeTids();
        boolean fifo = am.broadcasts.realtimeScheduling().equals("SCHED_FIFO");
        assertEquals(am.broadcasts.realtimeScheduling(), fifo ? "SCHED_FIFO 2" : "SCHED_OTHER", RealtimeScheduling.describe(tids[0]));
        assertEquals("the main looper, in the gate", "SCHED_OTHER", RealtimeScheduling.describe(tids[1]));
        app.sendBroadcast(new Intent("org.rtdroid.test.POLICY").putExtra("label", "normal")
                .putExtra(ProxyContract.EXTRA_SENDER_PRIORITY, 10));
        app.sendBroadcast(new Intent("org.rtdroid.test.POLICY").putExtra("label", "realtime")
                .putExtra(ProxyContract.EXTRA_SENDER_PRIORITY, 80));
        String lifted = fifo ? "SCHED_FIFO 1" : "SCHED_OTHER";
        while (!RealtimeScheduling.describe(tids[1]).equals(lifted) && System.nanoTime() < deadline) {
            Thread.sleep(1); // the real-time sender lends its priority under the guard
        }
        assertEquals("the main looper, in the gate, with a real-time broadcast waiting", lifted, RealtimeScheduling.describe(tids[1]));
        gate.open.countDown();
        both.await();
        assertEquals(List.of("realtime: " + lifted, "normal: SCHED_OTHER"), policies);
    }

    /**
     * The looper is lifted only inside deliveries: while it runs any other message (here one that
     * stands for a long layout or app launch) with a normal broadcast posted behind it and a
     * real-time one waiting, it stays at SCHED_OTHER, and so does every message it runs after a
     * real-time delivery. The normal broadcast's receivers, which the real-time one waits for, run
     * lifted (inheritance from the moment the looper enters their delivery). (At SCHED_FIFO such work would starve every SCHED_OTHER thread on its CPU,
     * the RT cell's non-real-time threads among them on a board whose cells share one.)
     */
    @Test
    public void theLooperIsNeverLiftedOutsideADelivery() throws Exception {
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        String[] inBusy = new String[1];
        CountDownLatch realtimeDelivered = new CountDownLatch(1);
        String[] inNormal = new String[1];
        app.registerReceiver(new BroadcastReceiver() {
            @Override
            public void onReceive(Context c, Intent i) {
                inNormal[0] = RealtimeScheduling.describe(RealtimeScheduling.tid());
            }
        }, new IntentFilter("org.rtdroid.test.NORMAL_BEHIND_BUSY"));
        app.registerReceiver(new BroadcastReceiver() {
            @Override
            public void onReceive(Context c, Intent i) {
                realtimeDelivered.countDown();
            }
        }, new IntentFilter("org.rtdroid.test.RT_AFTER_BUSY"));
        long deadline = System.nanoTime() + 60_000_000_000L; // hang detector only
        while (am.broadcasts.realtimeScheduling().equals("not started") && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        app.sendBroadcast(order("first", 0)); // the looper's first delivery records its tid
        while (am.broadcasts.realtimeTids()[1] == 0 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        int looper = am.broadcasts.realtimeTids()[1];
        new android.os.Handler(Looper.getMainLooper()).post(() -> {
            busy.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            inBusy[0] = RealtimeScheduling.describe(RealtimeScheduling.tid());
        });
        busy.await();
        // takes the slot, posted behind the busy message. Its lane's delivery thread takes it:
        // wait for that before the real-time one is sent, or that one finds the slot idle, goes
        // first, and the normal one is delivered after this test has looked (fresh-ci saw null).
        app.sendBroadcast(new Intent("org.rtdroid.test.NORMAL_BEHIND_BUSY").putExtra(ProxyContract.EXTRA_SENDER_PRIORITY, 10));
        while (am.broadcasts.queued() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        app.sendBroadcast(new Intent("org.rtdroid.test.RT_AFTER_BUSY").putExtra(ProxyContract.EXTRA_SENDER_PRIORITY, 80));
        while (am.broadcasts.queued() < 1 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        Thread.sleep(20); // (the delivery thread's chance to lend, which it must not take)
        assertEquals("the looper in a non-broadcast message, a real-time broadcast waiting", "SCHED_OTHER",
                RealtimeScheduling.describe(looper));
        release.countDown();
        realtimeDelivered.await();
        String[] after = new String[1];
        CountDownLatch ran = new CountDownLatch(1);
        new android.os.Handler(Looper.getMainLooper()).post(() -> {
            after[0] = RealtimeScheduling.describe(RealtimeScheduling.tid());
            ran.countDown();
        });
        ran.await();
        assertEquals("SCHED_OTHER", inBusy[0]);
        // Entered with the real-time broadcast waiting for its slot: inheritance, as when one is
        // sent while the receivers already run.
        assertEquals("a normal delivery a real-time broadcast waits for",
                am.broadcasts.realtimeScheduling().equals("SCHED_FIFO") ? "SCHED_FIFO 1" : "SCHED_OTHER", inNormal[0]);
        assertEquals("a message the looper runs after the real-time delivery", "SCHED_OTHER", after[0]);
    }

    @Test
    public void parallelSendersOfMixedPriorityAreDeliveredMostUrgentFirstFifoWithinAPriority() throws Exception {
        closeGateBehindOneDelivery();
        int[] priorities = {0, 0, 10, 10, 30, 49, 50, 80, 80, 99};
        int perSender = 15; // 60 real-time ones: within the rt lane's 64
        expected = new CountDownLatch(priorities.length * perSender);
        sendInParallel(priorities, perSender);
        assertEquals("dropped", 0, am.broadcasts.dropped());
        gate.open.countDown();
        expected.await();
        assertEquals(priorities.length * perSender, delivered.size());
        SandboxGate.assertPriorityThenFifo(delivered);
        assertEquals("99", delivered.get(0).substring(delivered.get(0).indexOf('@') + 1));
        assertTrue("receivers ran off the main looper: " + wrongThread, wrongThread.isEmpty());
        String stats = am.broadcasts.statsJson();
        assertTrue(stats, stats.contains("\"rt\":{\"capacity\":64,\"queued\":0,\"maxQueued\":60,\"enqueued\":60,\"delivered\":60,\"dropped\":0}"));
    }

    @Test
    public void aSenderPriorityOutsideZeroTo99IsRefusedToTheSender() {
        for (Object bad : new Object[] {100, -1, "90"}) {
            Intent i = new Intent(ORDER);
            if (bad instanceof Integer) {
                i.putExtra(ProxyContract.EXTRA_SENDER_PRIORITY, (int) (Integer) bad);
            } else {
                i.putExtra(ProxyContract.EXTRA_SENDER_PRIORITY, (String) bad);
            }
            try {
                app.sendBroadcast(i);
                throw new AssertionError("sender priority " + bad + " was accepted");
            } catch (IllegalArgumentException e) {
                assertTrue(e.getMessage(), e.getMessage().startsWith("extra " + ProxyContract.EXTRA_SENDER_PRIORITY
                        + " must be an int in 0..99, got " + bad));
            }
        }
        assertEquals(0, am.broadcasts.queued());
    }

    @Test
    public void oneSenderIsFifoWithinAPriorityAndALaterUrgentOneOvertakes() throws Exception {
        closeGateBehindOneDelivery();
        expected = new CountDownLatch(7);
        for (int k = 0; k < 3; k++) {
            app.sendBroadcast(order("s0#" + k, 5));
        }
        app.sendBroadcast(order("s1#0", 70));
        for (int k = 3; k < 6; k++) {
            app.sendBroadcast(order("s0#" + k, 5));
        }
        gate.open.countDown();
        expected.await();
        assertEquals(List.of("s1#0@70", "s0#0@5", "s0#1@5", "s0#2@5", "s0#3@5", "s0#4@5", "s0#5@5"), delivered);
    }

    @Test
    public void aFullLaneDropsItsLeastUrgentLatestBroadcastAndCountsIt() throws Exception {
        closeGateBehindOneDelivery();
        int cap = BroadcastQueue.NORMAL_CAPACITY;
        expected = new CountDownLatch(cap);
        for (int k = 0; k < cap; k++) {
            app.sendBroadcast(order("s0#" + k, 1));
        }
        for (int k = 0; k < 10; k++) { // each pushes out the latest priority-1 one
            app.sendBroadcast(order("s1#" + k, 2));
        }
        for (int k = 0; k < 5; k++) { // least urgent and latest themselves: dropped on arrival
            app.sendBroadcast(order("s2#" + k, 1));
        }
        CountDownLatch resultSeen = new CountDownLatch(1);
        boolean[] droppedFlag = {false};
        app.sendOrderedBroadcast(order("s3#0", 0), null, new BroadcastReceiver() {
            @Override
            public void onReceive(Context c, Intent i) {
                droppedFlag[0] = i.getBooleanExtra(ProxyContract.EXTRA_BROADCAST_DROPPED, false);
                resultSeen.countDown();
            }
        }, null, 0, null, null);
        String stats = am.broadcasts.statsJson();
        assertTrue(stats, stats.contains("\"overflowPolicy\":\"DROP_LEAST_URGENT\""));
        assertTrue(stats, stats.contains("\"normal\":{\"capacity\":256,\"queued\":256,\"maxQueued\":256,\"enqueued\":273,\"delivered\":0,\"dropped\":16}"));
        gate.open.countDown();
        expected.await();
        resultSeen.await();
        assertTrue("the dropped ordered broadcast's result receiver is told", droppedFlag[0]);
        assertEquals(cap, delivered.size());
        for (int k = 0; k < 10; k++) {
            assertEquals("s1#" + k + "@2", delivered.get(k));
        }
        for (int k = 0; k < cap - 10; k++) {
            assertEquals("s0#" + k + "@1", delivered.get(10 + k));
        }
    }

    /** A frame through the proxy, which hands it over on its own thread: wait until queued. */
    private void fromRt(RtInbound proxy, int priority, int queuedAfter) {
        proxy.fromRt(RT_CHANNEL, ORDER, priority);
        while (am.broadcasts.queued() < queuedAfter) {
            Thread.onSpinWait();
        }
    }

    @Test
    public void intentsFromTheRtCellTakeTheirPlaceByTheirRtSendersPriority() throws Exception {
        // The receiving side declares the channel (ChannelTable reads it from the PackageManager);
        // this test's receivers belong to the system package.
        PackageInfo pi = new PackageInfo();
        pi.packageName = Apps.SYSTEM;
        pi.applicationInfo = new ApplicationInfo();
        pi.applicationInfo.packageName = Apps.SYSTEM;
        pi.applicationInfo.metaData = new Bundle();
        pi.applicationInfo.metaData.putString(ProxyContract.META_CHANNELS, RT_CHANNEL);
        shadowOf(app.getPackageManager()).installPackage(pi);
        try (RtInbound proxy = new RtInbound(app)) {
            closeGateBehindOneDelivery();
            expected = new CountDownLatch(9);
            sendInParallel(new int[] {0, 60}, 2);         // apps: s0 at 0, s1 at 60
            fromRt(proxy, 90, 5);                         // rt:0
            fromRt(proxy, 20, 6);                         // rt:1
            fromRt(proxy, 60, 7);                         // rt:2, after s1's (arrived first)
            app.sendBroadcast(order("s2#0", 20));         // after rt:1
            fromRt(proxy, 0, 9);                          // rt:3
            assertEquals("dropped", 0, am.broadcasts.dropped());
            gate.open.countDown();
            expected.await();
            assertEquals(List.of("rt:0@90", "s1#0@60", "s1#1@60", "rt:2@60", "rt:1@20", "s2#0@20",
                    "s0#0@0", "s0#1@0", "rt:3@0"), delivered);
            // the four real-time sends (two of the apps' senders, two of the proxy) passed the check
            String stats = am.broadcasts.statsJson();
            assertTrue(stats, stats.contains("\"senderCheck\":{\"checks\":4,\"meanMicros\":"));
            while (proxy.delivered() < 4) { // the proxy's bookkeeping follows on its thread
                Thread.onSpinWait();
            }
            assertEquals(0, proxy.droppedQueueFull());
        }
    }
}
