package org.rtdroid.examples.spark;

import java.util.function.Supplier;
import org.rtdroid.runtime.reflection.Action;
import org.rtdroid.runtime.reflection.ExecutionEngine;
import org.rtdroid.runtime.reflection.FeedbackCalibration;
import org.rtdroid.runtime.reflection.RealTimeLine;
import org.rtdroid.runtime.reflection.Strategist;

/**
 * The seed's read → parse → analyse → display plan (Figure 3, Listings 4-6) on a reflective
 * timeline: four actions and the strategist's handlers.
 * Every action of a frame is planned to end before the frame's display instant (less the engine's
 * anticipation): the engine flags one that ends later as late.
 * <ul>
 *   <li><b>read</b> reads the next frame of the file; its handler plans <b>parse</b> at once;</li>
 *   <li><b>parse</b> converts it to RGB; its handler plans <b>display</b> at the frame's instant
 *       (first frame + n × frame interval, even when that has passed: a missed deadline is then
 *       seen, not hidden), and, if time is left before it (less the engine's anticipation), plans
 *       <b>analyse</b> now at the quality {@link AdaptationTable#lookup} picks for that time;</li>
 *   <li><b>analyse</b> scans the frame at steps dx, dy; its handler refines the table with the
 *       analysis's actual duration;</li>
 *   <li><b>display</b> hands the frame's result to its {@link Display} (the app publishes it over
 *       the region); its handler calibrates the engine (Listing 6, from frame
 *       {@code calibrateFromFrame} on, as the seed switches it on after frame 25) and plans the
 *       next read.</li>
 * </ul>
 * Everything is made here, at set-up; the handlers and actions allocate nothing.
 */
public final class SparkPipeline implements Strategist {
    public static final int READ = 1;
    public static final int PARSE = 2;
    public static final int ANALYSE = 3;
    public static final int DISPLAY = 4;
    /** The display action's planned length: the window it should start and end in. */
    static final long DISPLAY_NANOS = 1_000_000L;
    /** The largest change of the anticipation one display may cause (see {@link FeedbackCalibration}). */
    static final long CALIBRATION_STEP_NANOS = 20_000L;

    /** Where the display action sends a frame's result. Called on the engine's thread; allocation-free. */
    @FunctionalInterface
    public interface Display {
        void show(SparkPipeline frame);
    }

    private final Y4mVideo video;
    private final long frameIntervalNanos;
    private final long firstDisplayLeadNanos;
    private final int calibrateFromFrame;
    private final Supplier<ExecutionEngine> engine;
    private final Display display;
    private final FrameLog log;
    private final AdaptationTable table = new AdaptationTable();
    private final FeedbackCalibration calibration = new FeedbackCalibration(DISPLAY, CALIBRATION_STEP_NANOS);
    private final int[] rgb;
    private final int[] box = {-1, -1, -1, -1};

    private final Action read = new Action(READ, "read") {
        @Override
        public void perform() { readOk = video.read(frame); }
    };
    private final Action parse = new Action(PARSE, "parse") {
        @Override
        public void perform() { parsedOk = video.parse(rgb); }
    };
    private final Action analyse = new Action(ANALYSE, "analyse") {
        @Override
        public void perform() {
            FrameAnalysis.scan(rgb, video.width(), video.height(), AdaptationTable.dx(row), AdaptationTable.dy(row), box);
        }
    };
    private final Action show = new Action(DISPLAY, "display") {
        @Override
        public void perform() {
            clobbered = lastEndNanos > interval().plannedBeginNanos();
            display.show(SparkPipeline.this);
        }
    };

    // The frame in flight (engine thread only).
    private long frame;
    private long firstDisplayNanos;
    private boolean readOk;
    private boolean parsedOk;
    private int row = AdaptationTable.NONE;
    private boolean rowKnown;
    private long availableNanos;
    private long readBegin;
    private long parseBegin;
    private long analyseBegin;
    private long analyseEnd;
    private long lastEndNanos;
    private boolean clobbered;
    private volatile long framesDisplayed;
    private volatile long framesDropped;

    /**
     * @param frameIntervalNanos time between two frames' display instants (40 ms: 25 fps)
     * @param firstDisplayLeadNanos how far after the first read the first frame is displayed
     * @param calibrateFromFrame the frame from which the engine's wake-up is calibrated (seed: 25)
     * @param engine the engine that runs this plan (known once it started)
     */
    SparkPipeline(Y4mVideo video, long frameIntervalNanos, long firstDisplayLeadNanos, int calibrateFromFrame,
                  Supplier<ExecutionEngine> engine, Display display, FrameLog log) {
        this.video = video;
        this.frameIntervalNanos = frameIntervalNanos;
        this.firstDisplayLeadNanos = firstDisplayLeadNanos;
        this.calibrateFromFrame = calibrateFromFrame;
        this.engine = engine;
        this.display = display;
        this.log = log;
        this.rgb = new int[video.width() * video.height()];
    }

    /**
     * The plan over a YUV4MPEG2 file (4:2:0), for a benchmark or a tool that runs it on an engine
     * of its own; {@link #close()} closes the file.
     *
     * @throws java.io.IOException naming what is wrong with the file
     */
    public static SparkPipeline open(java.nio.file.Path video, long frameIntervalNanos, long firstDisplayLeadNanos,
                                     int calibrateFromFrame, Supplier<ExecutionEngine> engine, Display display,
                                     FrameLog log) throws java.io.IOException {
        return new SparkPipeline(Y4mVideo.open(video), frameIntervalNanos, firstDisplayLeadNanos, calibrateFromFrame,
                engine, display, log);
    }

    public void close() {
        video.close();
    }

    /**
     * Runs the actions' code (read, parse, the analysis at every quality) on the video's first
     * {@code frames} frames before the plan starts, so that the JIT has compiled it before the first
     * frame is due; the table, the box and the log are left as they were (the table learns from the
     * plan's own analyses). Cold on qemu-arm64-xen (virtual time), the first frame's parse took
     * 118 ms and the next four 28-40 ms against a 40 ms frame: the first six displays were late.
     */
    public void warmUp(int frames) {
        for (int k = 0; k < frames; k++) {
            if (video.read(k) && video.parse(rgb)) {
                for (int r = 0; r < AdaptationTable.ROWS; r++) {
                    FrameAnalysis.scan(rgb, video.width(), video.height(), AdaptationTable.dx(r), AdaptationTable.dy(r), box);
                }
            }
        }
        box[0] = box[1] = box[2] = box[3] = -1;
    }

    /** Plans the first read at {@code beginNanos}; the first frame is displayed the lead after it. */
    public void start(RealTimeLine timeline, long beginNanos) {
        firstDisplayNanos = beginNanos + firstDisplayLeadNanos;
        timeline.plan(read, beginNanos, Math.max(beginNanos, latestEnd(engine.get())));
    }

    /** When the frame's display is due. */
    private long displayInstant() {
        return firstDisplayNanos + frame * frameIntervalNanos;
    }

    /** The latest the frame's read, parse or analysis may end: its display's wake-up. */
    private long latestEnd(ExecutionEngine e) {
        return displayInstant() - (e == null ? 0 : e.anticipationNanos());
    }

    @Override
    public void executed(Action a, RealTimeLine tl) {
        ExecutionEngine e = engine.get();
        log.overhead(e.lastOverheadNanos());
        long begin = a.interval().actualBeginNanos();
        lastEndNanos = a.interval().actualEndNanos();
        switch (a.classTag()) {
            case READ -> {
                readBegin = begin;
                long now = tl.now();
                tl.plan(parse, now, Math.max(now, latestEnd(e)));
            }
            case PARSE -> {
                parseBegin = begin;
                if (!parsedOk) {
                    framesDropped++;  // a short read or a bad tag: no display for it, on to the next
                    frame++;
                    long now = tl.now();
                    tl.plan(read, now, Math.max(now, latestEnd(e)));
                    return;
                }
                long when = displayInstant();
                tl.plan(show, when, when + DISPLAY_NANOS);
                long now = tl.now();
                long wake = when - e.anticipationNanos();
                availableNanos = wake - now;
                row = table.lookup(availableNanos);
                analyseBegin = 0;
                analyseEnd = 0;
                box[0] = box[1] = box[2] = box[3] = -1;
                if (row != AdaptationTable.NONE) {
                    rowKnown = table.observed(row);
                    tl.plan(analyse, now, Math.max(now, wake));
                }
            }
            case ANALYSE -> {
                analyseBegin = begin;
                analyseEnd = lastEndNanos;
                table.update(row, lastEndNanos - begin, frame);
            }
            case DISPLAY -> {
                boolean on = frame >= calibrateFromFrame;
                calibration.enabled(on);
                long anticipation = e.anticipationNanos();
                calibration.onExecuted(a, e);
                log.frame(frame, row, rowKnown, availableNanos, analyseEnd - analyseBegin,
                        a.interval().plannedBeginNanos(), begin, clobbered, on, box[0] >= 0, anticipation);
                framesDisplayed++;
                frame++;
                long now = tl.now();
                tl.plan(read, now, Math.max(now, latestEnd(e)));
            }
            default -> { }
        }
    }

    // ------------------------------------------------------------ the frame being displayed

    /** The frame's number since the start. */
    public long frame() { return frame; }
    /** The box x0, y0, x1, y1, or -1s (the array is reused). */
    public int[] box() { return box; }
    /** The analysis's steps, or 0, 0 when there was no time to analyse. */
    public int dx() { return row == AdaptationTable.NONE ? 0 : AdaptationTable.dx(row); }
    public int dy() { return row == AdaptationTable.NONE ? 0 : AdaptationTable.dy(row); }
    public boolean displayClobbered() { return clobbered; }
    public boolean calibrating() { return calibration.enabled(); }
    public long plannedDisplayNanos() { return show.interval().plannedBeginNanos(); }
    public long actualDisplayNanos() { return show.interval().actualBeginNanos(); }
    public long readBeginNanos() { return readBegin; }
    public long parseBeginNanos() { return parseBegin; }
    /** 0 when the frame was not analysed. */
    public long analyseBeginNanos() { return analyseBegin; }
    public long analyseEndNanos() { return analyseEnd; }
    public long availableNanos() { return availableNanos; }
    /** The engine's anticipation (0 before it started). */
    public long anticipationNanos() {
        ExecutionEngine e = engine.get();
        return e == null ? 0 : e.anticipationNanos();
    }

    // ------------------------------------------------------------ totals

    public long framesDisplayed() { return framesDisplayed; }
    /** Frames read short or with a bad tag (not displayed). */
    public long framesDropped() { return framesDropped; }
    public AdaptationTable table() { return table; }
    public FeedbackCalibration calibration() { return calibration; }
    public FrameLog log() { return log; }
    public int width() { return video.width(); }
    public int height() { return video.height(); }
}
