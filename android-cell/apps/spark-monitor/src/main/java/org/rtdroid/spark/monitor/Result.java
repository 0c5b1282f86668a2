package org.rtdroid.spark.monitor;

import org.rtdroid.contract.spark.Spark;
import org.rtdroid.video.SparkScene;

/**
 * One frame's result from the RT cell (a {@code FrameResult} of the spark contract,
 * {@code bridge/contracts/spark.proto}), copied out of the reused message so the strip can keep the
 * last frames.
 */
final class Result {
    final long frame;
    final int x0;
    final int y0;
    final int x1;
    final int y1;
    final int dx;
    final int dy;
    final boolean clobbered;
    final boolean calibrated;
    final long plannedDisplayNanos;
    final long actualDisplayNanos;
    final int analyseBeginMicros;
    final int analyseEndMicros;
    final int availableMicros;

    private Result(Spark.FrameResult m) {
        frame = m.frame();
        x0 = m.x0();
        y0 = m.y0();
        x1 = m.x1();
        y1 = m.y1();
        dx = m.dx();
        dy = m.dy();
        clobbered = m.clobbered();
        calibrated = m.calibrated();
        plannedDisplayNanos = m.plannedDisplayNanos();
        actualDisplayNanos = m.actualDisplayNanos();
        analyseBeginMicros = m.analyseBeginUs();
        analyseEndMicros = m.analyseEndUs();
        availableMicros = m.availableUs();
    }

    /** @return the frame's result, or null if the message is not a sane one (steps, a box outside the frame) */
    static Result of(Spark.FrameResult m) {
        Result r = new Result(m);
        boolean box = r.x0 >= 0;
        if (r.frame < 0 || r.dx > 16 || r.dy > 16 || (r.dx == 0) != (r.dy == 0)
                || (box && (r.y0 < 0 || r.x1 < r.x0 || r.y1 < r.y0 || r.x1 >= SparkScene.WIDTH || r.y1 >= SparkScene.HEIGHT))
                || (!box && (r.x0 != -1 || r.y0 != -1 || r.x1 != -1 || r.y1 != -1))) {
            return null;
        }
        return r;
    }

    boolean hasBox() { return x0 >= 0; }
    boolean analysed() { return dx > 0; }
    boolean clobbered() { return clobbered; }
    boolean calibrated() { return calibrated; }
    long displayErrorMicros() { return (actualDisplayNanos - plannedDisplayNanos) / 1_000; }

    /** {@code "37 120,80,131,92"}, {@code "38 -"} (no box) or {@code "39 ?"} (not analysed): one line of the history. */
    String line() {
        return frame + " " + (!analysed() ? "?" : hasBox() ? x0 + "," + y0 + "," + x1 + "," + y1 : "-");
    }
}
