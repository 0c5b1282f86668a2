package org.rtdroid.examples.spark;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.rtdroid.contract.spark.Spark;
import org.rtdroid.runtime.component.RealtimeService;
import org.rtdroid.runtime.reflection.ExecutionEngine;
import org.rtdroid.runtime.xcc.CrossContextClosure;
import org.rtdroid.runtime.xcc.CrossContextIntent;
import org.rtdroid.runtime.xcc.CrossContextPublisher;
import org.rtdroid.video.SparkScene;
import org.rtdroid.video.Y4mWriter;

/**
 * Adaptive spark detection in a video stream (seed 004, section 5), as a reflective RT service:
 * its strategist ({@link SparkPipeline}) plans read → parse → analyse → display on the service's
 * timeline, and the runtime's execution engine runs the actions. The video is the project's own
 * (the {@code video} leaf's {@link SparkScene}: sparks and lightning at known frames), written as
 * a YUV4MPEG2 file in the cell's temporary directory when the service is created and read from it
 * frame by frame, 25 frames a second, looping. Each frame's result goes to the Android cell on
 * cross-context channel {@code spark.result} as the display action: a {@code FrameResult} of the
 * app's contract ({@code bridge/contracts/spark.proto}), encoded in place into the runtime's intent.
 *
 * <p>Raw frames rather than an encoded stream: no decoder on Maven Central fits the RT cell (the
 * pure-Java ones, JCodec among them, allocate per frame and are no longer maintained; FFmpeg's
 * bindings bring tens of megabytes of native code per architecture into the cell), so the parse
 * action is a YUV → RGB conversion, the step a decoder ends with.
 */
public final class SparkDetectionService extends RealtimeService implements CrossContextClosure {
    /** 25 frames a second, the video's rate. */
    static final long FRAME_INTERVAL_NANOS = 1_000_000_000L / SparkScene.FPS;
    /** The first frame is displayed this long after it is parsed (room for the first analysis). */
    static final long FIRST_DISPLAY_LEAD_NANOS = 100_000_000L;
    /** As in the seed: feedback calibration of the engine from frame 25 on. */
    static final int CALIBRATE_FROM_FRAME = 25;
    /**
     * Frames the plan's code and the result's encode run on while the service is created (see
     * {@link SparkPipeline#warmUp}): on qemu-arm64-xen the parse reached its compiled speed (4.2 ms
     * of virtual time) from the tenth frame on.
     */
    static final int WARMUP_FRAMES = 24;

    private Path file;
    private Y4mVideo video;
    private SparkPipeline pipeline;
    private CrossContextPublisher results;
    private SparkPipeline shown;
    private final Spark.FrameResult result = new Spark.FrameResult();
    private volatile long published;
    private volatile long refused;

    @Override
    public void onCreate() {
        results = crossContextPublisher(Spark.FrameResult.CHANNEL);
        try {
            file = Files.createTempFile("rtdroid-spark-", ".y4m");
            try (OutputStream out = new java.io.BufferedOutputStream(Files.newOutputStream(file))) {
                Y4mWriter.write(out, SparkScene.FRAMES);
            }
            video = Y4mVideo.open(file);
        } catch (IOException e) {
            throw new UncheckedIOException("spark: cannot write or open the test video " + file + ": " + e.getMessage(), e);
        }
        pipeline = new SparkPipeline(video, FRAME_INTERVAL_NANOS, FIRST_DISPLAY_LEAD_NANOS, CALIBRATE_FROM_FRAME,
                this::executionEngine, this::publish, new FrameLog(1024));
        pipeline.warmUp(WARMUP_FRAMES);
        // The display's encode too (into a scratch intent: nothing is sent); cold, the first
        // display took 4.8 ms against its 1 ms window on qemu-arm64-xen (virtual time).
        CrossContextIntent scratch = new CrossContextIntent();
        shown = pipeline;
        for (int k = 0; k < WARMUP_FRAMES; k++) {
            genMsg(scratch);
        }
        shown = null;
    }

    @Override
    public void onStartCommand() {
        strategist(pipeline);
        pipeline.start(timeline(), timeline().now() + 20_000_000L);
    }

    @Override
    public void onDestroy() {
        if (video != null) {
            video.close();
        }
        try {
            if (file != null) {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            // a temporary file left behind is not worth failing the undeploy for
        }
    }

    /** The display action: the frame's result over the region. */
    private void publish(SparkPipeline frame) {
        shown = frame;
        if (results.publish(this) == CrossContextPublisher.PUBLISHED) {
            published++;
        } else {
            refused++;
        }
    }

    @Override
    public void genMsg(CrossContextIntent out) {
        SparkPipeline f = shown;
        long planned = f.plannedDisplayNanos();
        int[] box = f.box();
        boolean analysed = f.analyseBeginNanos() != 0;
        result.frame(f.frame()).x0(box[0]).y0(box[1]).x1(box[2]).y1(box[3]).dx(f.dx()).dy(f.dy())
                .clobbered(f.displayClobbered()).calibrated(f.calibrating())
                .plannedDisplayNanos(planned).actualDisplayNanos(f.actualDisplayNanos())
                .readBeginUs(micros(f.readBeginNanos() - planned)).parseBeginUs(micros(f.parseBeginNanos() - planned))
                .analyseBeginUs(analysed ? micros(f.analyseBeginNanos() - planned) : 0)
                .analyseEndUs(analysed ? micros(f.analyseEndNanos() - planned) : 0)
                .availableUs(micros(f.availableNanos()))
                .anticipationNs((int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, f.anticipationNanos())));
        out.setAction(Spark.FrameResult.ACTION_RESULT);
        out.setSender("rtdroid.spark");
        out.setSenderPriority(Spark.FrameResult.PRIORITY);
        out.setPayloadLength(result.encode(out.payload(), 0));
    }

    private static int micros(long nanos) {
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, nanos / 1_000));
    }

    /** The strategist (its table, calibration and frame log). */
    public SparkPipeline pipeline() { return pipeline; }
    /** Results published over the region, and refused (the outbound ring was full). */
    public long published() { return published; }
    public long refused() { return refused; }
    /** The engine (null before start). */
    public ExecutionEngine engine() { return executionEngine(); }
}
