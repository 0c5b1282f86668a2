package org.rtdroid.examples.autopilot;

/**
 * The receiving microcontroller's SPI register: where a receiver puts the newest frame the other
 * module broadcast and the module's tasks read it. One writer (the receiver), any readers, no lock:
 * a sequence number, odd while the writer is inside (a seqlock); a reader retries a torn read.
 * Fixed size; nothing allocates.
 */
final class SpiRegister {
    private final double[] values;
    private volatile long version;
    /** Frames written so far (even versions / 2). */
    private volatile long frames;

    SpiRegister(int size) {
        values = new double[size];
    }

    /** The receiver: one frame. */
    void write(double a, double b, double c, double d, double e, double f) {
        version++;
        values[0] = a;
        values[1] = b;
        values[2] = c;
        values[3] = d;
        if (values.length > 4) {
            values[4] = e;
            values[5] = f;
        }
        version++;
        frames++;
    }

    /** Copies the newest frame into {@code into}; @return how many frames were written so far (0: none yet) */
    long read(double[] into) {
        while (true) {
            long v = version;
            if ((v & 1) == 0) {
                System.arraycopy(values, 0, into, 0, values.length);
                if (version == v) {
                    return v / 2;
                }
            }
            Thread.onSpinWait();
        }
    }

    void clear() {
        java.util.Arrays.fill(values, 0);
        version = 0;
        frames = 0;
    }

    long frames() {
        return frames;
    }

    /** The app's two registers: each module's, written by its receiver (reset when the module is created). */
    static final SpiRegister FBW = new SpiRegister(4);
    static final SpiRegister AUTOPILOT = new SpiRegister(6);
}
