package org.rtdroid.android.proxy;

/**
 * The last {@code capacity} round trips of app-originated requests, in nanoseconds:
 * the whole round trip (app's send to the end of the app's receiver, where it updates its view),
 * the Android side's two shares (Intent to frame written; frame read to broadcast delivered) and
 * the RT cell's own share as its proxy stamped it (-1 when the reply carried no stamps).
 */
public final class LatencyLog {
    private final long[] roundTrip;
    private final long[] intentToFrame;
    private final long[] frameToDelivered;
    private final long[] rtShare;
    private long count;

    LatencyLog(int capacity) {
        roundTrip = new long[capacity];
        intentToFrame = new long[capacity];
        frameToDelivered = new long[capacity];
        rtShare = new long[capacity];
    }

    synchronized void record(long rtt, long toFrame, long toDelivered, long rt) {
        int i = (int) (count % roundTrip.length);
        roundTrip[i] = rtt;
        intentToFrame[i] = toFrame;
        frameToDelivered[i] = toDelivered;
        rtShare[i] = rt;
        count++;
    }

    /** Total samples recorded since start (the arrays keep the last capacity ones). */
    public synchronized long count() {
        return count;
    }

    /** Copies the retained samples, oldest first: [roundTrip, intentToFrame, frameToDelivered, rtShare]. */
    public synchronized long[][] snapshot() {
        int n = (int) Math.min(count, roundTrip.length);
        long[][] out = new long[4][n];
        long start = count - n;
        for (int k = 0; k < n; k++) {
            int i = (int) ((start + k) % roundTrip.length);
            out[0][k] = roundTrip[i];
            out[1][k] = intentToFrame[i];
            out[2][k] = frameToDelivered[i];
            out[3][k] = rtShare[i];
        }
        return out;
    }

    public synchronized void clear() {
        count = 0;
    }
}
