package org.rtdroid.spark.monitor;

import static org.rtdroid.android.app.LittleEndian.getI32;
import static org.rtdroid.android.app.LittleEndian.getI64;

/**
 * One frame's RESULT record from the RT cell (bridge protocols document, spark.result): its
 * number, the box, the analysis quality, the planned and actual display instants and the cycle's
 * times relative to the planned display.
 */
final class Result {
    static final int BYTES = 72;
    static final int FLAG_BOX = 1;
    static final int FLAG_CLOBBERED = 2;
    static final int FLAG_CALIBRATED = 4;

    final int frame;
    final int x0;
    final int y0;
    final int x1;
    final int y1;
    final int dx;
    final int dy;
    final int flags;
    final long plannedDisplayNanos;
    final long actualDisplayNanos;
    final int readBeginMicros;
    final int parseBeginMicros;
    final int analyseBeginMicros;
    final int analyseEndMicros;
    final int availableMicros;
    final int anticipationNanos;

    private Result(byte[] p) {
        frame = getI32(p, 0);
        x0 = getI32(p, 4);
        y0 = getI32(p, 8);
        x1 = getI32(p, 12);
        y1 = getI32(p, 16);
        dx = getI32(p, 20);
        dy = getI32(p, 24);
        flags = getI32(p, 28);
        plannedDisplayNanos = getI64(p, 32);
        actualDisplayNanos = getI64(p, 40);
        readBeginMicros = getI32(p, 48);
        parseBeginMicros = getI32(p, 52);
        analyseBeginMicros = getI32(p, 56);
        analyseEndMicros = getI32(p, 60);
        availableMicros = getI32(p, 64);
        anticipationNanos = getI32(p, 68);
    }

    /** @return the record, or null if {@code p} is not one (wrong size, a box outside the frame) */
    static Result parse(byte[] p) {
        if (p == null || p.length != BYTES) {
            return null;
        }
        Result r = new Result(p);
        boolean box = (r.flags & FLAG_BOX) != 0;
        if (r.frame < 0 || r.dx < 0 || r.dy < 0 || r.dx > 16 || r.dy > 16
                || (box && (r.x0 < 0 || r.y0 < 0 || r.x1 < r.x0 || r.y1 < r.y0
                        || r.x1 >= org.rtdroid.video.SparkScene.WIDTH || r.y1 >= org.rtdroid.video.SparkScene.HEIGHT))) {
            return null;
        }
        return r;
    }

    boolean hasBox() { return (flags & FLAG_BOX) != 0; }
    boolean analysed() { return dx > 0; }
    boolean clobbered() { return (flags & FLAG_CLOBBERED) != 0; }
    boolean calibrated() { return (flags & FLAG_CALIBRATED) != 0; }
    long displayErrorMicros() { return (actualDisplayNanos - plannedDisplayNanos) / 1_000; }

    /** {@code "37 120,80,131,92"}, {@code "38 -"} (no box) or {@code "39 ?"} (not analysed): one line of the history. */
    String line() {
        return frame + " " + (!analysed() ? "?" : hasBox() ? x0 + "," + y0 + "," + x1 + "," + y1 : "-");
    }
}
