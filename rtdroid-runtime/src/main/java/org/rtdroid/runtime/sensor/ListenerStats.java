package org.rtdroid.runtime.sensor;

import org.rtdroid.runtime.os.ExecutionMeter;

/**
 * One component's listener callbacks on one sensor: how many, the worst delivery (the frame's
 * time stamp to the callback's start), the worst response (to the callback's end), the most CPU
 * time one callback used, and the callbacks that used more than the component's declared cost.
 * The static validation counts a listener's callbacks as its component's work, so the component
 * adds these to its own callbacks in its status (`rtdroid rt services`), beside the analysed
 * WCRT. The frame's stamp is the kernel's (evdev, CLOCK_MONOTONIC, taken as the frame was
 * written into the device), so response runs from the device to the end of the callback.
 *
 * <p>Written only by the handler of the one lane its component's listeners of that sensor run
 * in (one run at a time); read on the management path. Allocation-free.
 */
public final class ListenerStats {
    private volatile long callbacks;
    private volatile long worstDeliveryNanos;
    private volatile long worstResponseNanos;
    private final ExecutionMeter execution = new ExecutionMeter(0);

    /** One callback: the frame's stamp, the callback's start and end (System.nanoTime), its start on the thread's CPU clock ({@link ExecutionMeter#start}). */
    void record(long stampNanos, long startNanos, long endNanos, long cpuStart) {
        long n = callbacks + 1;
        callbacks = n;
        long delivery = startNanos - stampNanos;
        if (delivery > worstDeliveryNanos) {
            worstDeliveryNanos = delivery;
        }
        long response = endNanos - stampNanos;
        if (response > worstResponseNanos) {
            worstResponseNanos = response;
        }
        execution.end(cpuStart, n);
    }

    /** The cost per callback the admission analysis assumed (the component's declared cost); 0: none. */
    void costNanos(long nanos) { execution.costNanos(nanos); }

    public long callbacks() { return callbacks; }
    public long worstDeliveryNanos() { return worstDeliveryNanos; }
    public long worstResponseNanos() { return worstResponseNanos; }
    public long worstCpuNanos() { return execution.worstNanos(); }
    public long overruns() { return execution.overruns(); }
    /** The callback (from 1, of this sensor's) that overran the cost last; 0: none did. */
    public long lastOverrun() { return execution.lastOverrun(); }
}
