package org.rtdroid.android.cell;

import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/**
 * Makes broadcast order deterministic in the sandbox tests: a receiver that holds the main looper
 * (and so the delivery in progress) on a latch while the senders fill a queue, and the check of
 * the order the queue then delivers ("label#seq@priority" labels).
 */
final class SandboxGate extends BroadcastReceiver {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch open = new CountDownLatch(1);

    @Override
    public void onReceive(Context c, Intent i) {
        entered.countDown();
        try {
            open.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static int priorityOf(String label) {
        return Integer.parseInt(label.substring(label.lastIndexOf('@') + 1));
    }

    /** Higher priority never after lower; within one priority each sender's sends in its order. */
    static void assertPriorityThenFifo(List<String> order) {
        Map<String, Integer> lastSeq = new HashMap<>();
        for (int i = 0; i < order.size(); i++) {
            String l = order.get(i);
            if (i > 0 && priorityOf(order.get(i - 1)) < priorityOf(l)) {
                throw new AssertionError("priority order broken at " + i + ": " + order);
            }
            if (!l.startsWith("s")) {
                continue;
            }
            String sender = l.substring(0, l.indexOf('#'));
            int seq = Integer.parseInt(l.substring(l.indexOf('#') + 1, l.indexOf('@')));
            Integer prev = lastSeq.put(sender, seq);
            if (prev != null && prev >= seq) {
                throw new AssertionError("FIFO broken for " + sender + ": " + order);
            }
        }
    }

    /**
     * One sender thread per priority, all started together; sender {@code s} sends
     * {@code perSender} intents "s{s}#{k}@{priority}" through {@code send}. Returns when every
     * sender is done (their sends queued); fails with the first sender's exception.
     */
    static void sendInParallel(int[] priorities, int perSender, Consumer<Intent> send, String action)
            throws InterruptedException {
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> senders = new ArrayList<>();
        List<Throwable> failed = Collections.synchronizedList(new ArrayList<>());
        for (int s = 0; s < priorities.length; s++) {
            int sender = s;
            Thread t = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int k = 0; k < perSender; k++) {
                    send.accept(new Intent(action).putExtra("label", "s" + sender + "#" + k + "@" + priorities[sender])
                            .putExtra("org.rtdroid.intent.extra.SENDER_PRIORITY", priorities[sender]));
                }
            }, "sender-" + s);
            t.setUncaughtExceptionHandler((th, e) -> failed.add(e));
            senders.add(t);
            t.start();
        }
        go.countDown();
        for (Thread t : senders) {
            t.join();
        }
        if (!failed.isEmpty()) {
            throw new AssertionError("a sender failed", failed.get(0));
        }
    }
}
