package org.rtdroid.bench.looper;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rtdroid.bench.looper.fifo.Handler;
import org.rtdroid.bench.looper.fifo.HandlerThread;
import org.rtdroid.bench.looper.fifo.Message;
import org.rtdroid.runtime.os.RealtimePolicy;
import org.rtdroid.runtime.os.RealtimeThreads;

/** The baseline must behave like stock Android: FIFO, time-ordered, blind to priority. */
class FifoLooperTest {
    @Test
    void deliversInTimeOrderFifoAmongEqualTimesWhateverTheSendersPriority() throws Exception {
        HandlerThread t = new HandlerThread("fifo");
        t.start();
        List<Integer> log = new CopyOnWriteArrayList<>();
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(5);
        Handler h = new Handler(t.getLooper()) {
            @Override
            public void handleMessage(Message m) {
                if (m.what == 0) {
                    blocked.countDown();
                    try {
                        gate.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return;
                }
                log.add(m.what);
                done.countDown();
            }
        };
        h.sendEmptyMessage(0);
        assertTrue(blocked.await(5, TimeUnit.SECONDS));
        long now = System.nanoTime();
        h.sendMessageAtTimeNanos(h.obtainMessage(1), now);
        Thread high = new Thread(() -> {
            RealtimeThreads.applyToCurrentThread(new RealtimePolicy(80, null, 0));
            h.sendMessageAtTimeNanos(h.obtainMessage(2), now);
        });
        high.start();
        high.join();
        h.sendMessageAtTimeNanos(h.obtainMessage(3), now - 1_000);
        h.sendMessageDelayed(h.obtainMessage(4), 30);
        h.sendMessageAtTimeNanos(h.obtainMessage(5), now);
        gate.countDown();
        assertTrue(done.await(5, TimeUnit.SECONDS));
        assertEquals(List.of(3, 1, 2, 5, 4), log);
        Message m = h.obtainMessage(9);
        h.sendMessageDelayed(m, 10_000);
        assertThrows(IllegalStateException.class, () -> h.sendMessage(m), "already in use");
        t.quit();
        t.join(5000);
    }
}
