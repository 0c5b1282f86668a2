package org.rtdroid.android.cell;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import android.app.Application;
import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;
import android.content.IntentFilter;
import android.os.Looper;

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
import org.rtdroid.android.content.LocalBroadcastManager;

/**
 * The app library's priority-ordered LocalBroadcastManager on the real framework's main looper.
 * A gate receiver blocks the looper on a latch while the senders queue; senders are joined before
 * the gate opens; never a sleep. Run by {@link LocalBroadcastTest}.
 */
@RunWith(RobolectricTestRunner.class)
@Config(sdk = Main.SUPPORTED_SDK, manifest = Config.NONE, shadows = {CellLogShadow.class})
@LooperMode(LooperMode.Mode.INSTRUMENTATION_TEST)
public class LocalBroadcastSandbox {
    static final String GATE = "org.rtdroid.test.LOCAL_GATE";
    static final String ORDER = "org.rtdroid.test.LOCAL_ORDER";

    private LocalBroadcastManager lbm;
    private final List<String> delivered = Collections.synchronizedList(new ArrayList<>());
    private final List<String> threads = Collections.synchronizedList(new ArrayList<>());
    private CountDownLatch expected = new CountDownLatch(0);

    private final SandboxGate gate = new SandboxGate();

    private final BroadcastReceiver recorder = new BroadcastReceiver() {
        @Override
        public void onReceive(Context c, Intent i) {
            threads.add(Looper.myLooper() == Looper.getMainLooper() ? "main" : Thread.currentThread().getName());
            delivered.add(i.getStringExtra("label"));
            expected.countDown();
        }
    };

    @Before
    public void register() {
        Application app = RuntimeEnvironment.getApplication();
        lbm = LocalBroadcastManager.getInstance(app);
        lbm.registerReceiver(gate, new IntentFilter(GATE));
        lbm.registerReceiver(recorder, new IntentFilter(ORDER));
    }

    @After
    public void unregister() {
        gate.open.countDown();
        lbm.unregisterReceiver(gate);
        lbm.unregisterReceiver(recorder);
    }

    private void closeGate() throws InterruptedException {
        assertTrue(lbm.sendBroadcast(new Intent(GATE)));
        gate.entered.await();
    }

    private static Intent order(String label, int priority) {
        return new Intent(ORDER).putExtra("label", label + "@" + priority)
                .putExtra(LocalBroadcastManager.EXTRA_SENDER_PRIORITY, priority);
    }

    @Test
    public void parallelSendersOfMixedPriorityAreDeliveredMostUrgentFirstFifoWithinAPriority() throws Exception {
        closeGate();
        int[] priorities = {0, 5, 5, 20, 49, 50, 70, 70, 99};
        int perSender = 20;
        expected = new CountDownLatch(priorities.length * perSender);
        SandboxGate.sendInParallel(priorities, perSender, lbm::sendBroadcast, ORDER);
        assertEquals(priorities.length * perSender, lbm.pendingCount());
        gate.open.countDown();
        expected.await();
        assertEquals(priorities.length * perSender, delivered.size());
        SandboxGate.assertPriorityThenFifo(delivered);
        assertEquals("s8#0@99", delivered.get(0));
        assertTrue("receivers ran off the main looper: " + threads, threads.stream().allMatch("main"::equals));
        assertEquals(0, lbm.droppedCount());
    }

    @Test
    public void aRealTimeBroadcastOvertakesQueuedOnesAndSyncDeliversOnlyItsOwnIntent() throws Exception {
        closeGate();
        expected = new CountDownLatch(5);
        for (int k = 0; k < 3; k++) {
            lbm.sendBroadcast(order("s0#" + k, 10));
        }
        // Synchronous: delivered now, in this thread, and the three queued ones stay queued.
        assertTrue(lbm.sendBroadcastSync(order("sync#0", 10)));
        assertEquals(List.of("sync#0@10"), delivered);
        assertEquals(Thread.currentThread().getName(), threads.get(0));
        assertEquals(3, lbm.pendingCount());
        lbm.sendBroadcast(order("s1#0", 80));
        gate.open.countDown();
        expected.await();
        assertEquals(List.of("sync#0@10", "s1#0@80", "s0#0@10", "s0#1@10", "s0#2@10"), delivered);
    }

    @Test
    public void aFullQueueDropsItsLeastUrgentLatestBroadcastAndCountsIt() throws Exception {
        closeGate();
        int cap = LocalBroadcastManager.CAPACITY;
        long droppedBefore = lbm.droppedCount();
        expected = new CountDownLatch(cap);
        for (int k = 0; k < cap; k++) {
            assertTrue(lbm.sendBroadcast(order("s0#" + k, 1)));
        }
        for (int k = 0; k < 4; k++) { // each pushes out the latest priority-1 one
            assertTrue(lbm.sendBroadcast(order("s1#" + k, 2)));
        }
        assertFalse("least urgent and latest: dropped on arrival", lbm.sendBroadcast(order("s2#0", 0)));
        assertEquals(5, lbm.droppedCount() - droppedBefore);
        assertEquals(cap, lbm.pendingCount());
        gate.open.countDown();
        expected.await();
        for (int k = 0; k < 4; k++) {
            assertEquals("s1#" + k + "@2", delivered.get(k));
        }
        assertEquals("s0#" + (cap - 5) + "@1", delivered.get(cap - 1));
    }

    @Test
    public void aSenderPriorityOutsideZeroTo99IsRefusedToTheSender() {
        for (Object bad : new Object[] {100, -1, "90"}) {
            Intent i = new Intent(ORDER).putExtra("label", "bad");
            if (bad instanceof Integer) {
                i.putExtra(LocalBroadcastManager.EXTRA_SENDER_PRIORITY, (int) (Integer) bad);
            } else {
                i.putExtra(LocalBroadcastManager.EXTRA_SENDER_PRIORITY, (String) bad);
            }
            try {
                lbm.sendBroadcast(i);
                throw new AssertionError("sender priority " + bad + " was accepted");
            } catch (IllegalArgumentException e) {
                assertTrue(e.getMessage(), e.getMessage().startsWith("extra "
                        + LocalBroadcastManager.EXTRA_SENDER_PRIORITY + " must be an int in 0..99, got " + bad));
            }
        }
        assertEquals(0, lbm.pendingCount());
    }

    @Test
    public void anUnregisteredReceiverGetsNothingAndNoMatchIsNotQueued() {
        BroadcastReceiver other = new BroadcastReceiver() {
            @Override
            public void onReceive(Context c, Intent i) {
                throw new AssertionError("unregistered receiver ran");
            }
        };
        lbm.registerReceiver(other, new IntentFilter("org.rtdroid.test.NOBODY"));
        lbm.unregisterReceiver(other);
        assertFalse(lbm.sendBroadcast(new Intent("org.rtdroid.test.NOBODY")));
        assertFalse(lbm.sendBroadcastSync(new Intent("org.rtdroid.test.NOBODY")));
        assertEquals(0, lbm.pendingCount());
    }
}
