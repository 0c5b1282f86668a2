package org.rtdroid.examples.spark;

import static org.rtdroid.examples.spark.SparkProtocol.*;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * cross-context channel {@value SparkProtocol#RESULT_CHANNEL} as the display action.
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

    private Path file;
    private Y4mVideo video;
    private SparkPipeline pipeline;
    private CrossContextPublisher results;
    private SparkPipeline shown;
    private volatile long published;
    private volatile long refused;

    @Override
    public void onCreate() {
        results = crossContextPublisher(RESULT_CHANNEL);
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
        int flags = (box[0] >= 0 ? FLAG_BOX : 0) | (f.displayClobbered() ? FLAG_CLOBBERED : 0)
                | (f.calibrating() ? FLAG_CALIBRATED : 0);
        out.setAction(ACTION_RESULT);
        out.setSender(SENDER);
        out.setSenderPriority(50);
        out.putPayloadInt(FRAME_OFFSET, (int) f.frame());
        for (int i = 0; i < 4; i++) {
            out.putPayloadInt(BOX_OFFSET + 4 * i, box[i]);
        }
        out.putPayloadInt(DX_OFFSET, f.dx());
        out.putPayloadInt(DY_OFFSET, f.dy());
        out.putPayloadInt(FLAGS_OFFSET, flags);
        out.putPayloadLong(PLANNED_DISPLAY_OFFSET, planned);
        out.putPayloadLong(ACTUAL_DISPLAY_OFFSET, f.actualDisplayNanos());
        out.putPayloadInt(READ_BEGIN_OFFSET, micros(f.readBeginNanos() - planned));
        out.putPayloadInt(PARSE_BEGIN_OFFSET, micros(f.parseBeginNanos() - planned));
        boolean analysed = f.analyseBeginNanos() != 0;
        out.putPayloadInt(ANALYSE_BEGIN_OFFSET, analysed ? micros(f.analyseBeginNanos() - planned) : 0);
        out.putPayloadInt(ANALYSE_END_OFFSET, analysed ? micros(f.analyseEndNanos() - planned) : 0);
        out.putPayloadInt(AVAILABLE_OFFSET, micros(f.availableNanos()));
        out.putPayloadInt(ANTICIPATION_OFFSET, (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, f.anticipationNanos())));
        out.setPayloadLength(RESULT_BYTES);
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
