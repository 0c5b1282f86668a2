package org.rtdroid.android.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.PriorityQueue;

import org.junit.jupiter.api.Test;

/** The proxy's delivery queue: sender priority first (Kalkov et al.), arrival order within one. */
class DeliveryOrderTest {
    private static long arrivals;

    private static DeliveryQueue.Inbound in(String action, int priority) {
        DeliveryQueue.Inbound i = new DeliveryQueue.Inbound("c", action, priority, new byte[0], 0, 0, 0, 0, 1, 0);
        i.arrival = arrivals++;
        return i;
    }

    @Test
    void higherPriorityIsDeliveredFirstAndEqualPrioritiesInArrivalOrder() {
        PriorityQueue<DeliveryQueue.Inbound> q = new PriorityQueue<>();
        q.add(in("status-1", 10));
        q.add(in("status-2", 10));
        q.add(in("pong", 90));
        q.add(in("ack", 60));
        q.add(in("status-3", 10));
        StringBuilder order = new StringBuilder();
        while (!q.isEmpty()) {
            order.append(q.poll().action).append(' ');
        }
        assertEquals("pong ack status-1 status-2 status-3 ", order.toString());
    }
}
