package org.rtdroid.examples.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rtdroid.runtime.memory.HeapMeter;
import org.rtdroid.runtime.reflection.ExecutionEngine;
import org.rtdroid.runtime.reflection.PastTimeline;
import org.rtdroid.runtime.reflection.RealTimeLine;
import org.rtdroid.video.SparkScene;
import org.rtdroid.video.Y4mWriter;

/**
 * The strategist's plan on a real engine and a real file, at 10 ms (and 2 ms) per frame so that a
 * test sees hundreds of frames: boxes exactly on the scene's event frames, inside the events, the
 * plan's display instants on their grid, the actions in the seed's order, and nothing allocated on
 * the engine's thread per frame. No verdict depends on the machine's speed: a frame left without
 * time for its analysis (a loaded machine) is checked for having no box, not counted as a failure.
 */
class SparkPipelineTest {
    private static final long FRAME_NANOS = 2_000_000L;
    private static final long FRAME_NANOS_CHECKED = 10_000_000L;

    @TempDir
    Path dir;
    private Y4mVideo video;
    private ExecutionEngine engine;
    private SparkPipeline pipeline;
    private RealTimeLine tl;
    private final int[][] boxes = new int[4096][];
    private final long[] dx = new long[4096];

    private void open(long frameNanos) throws Exception {
        Path file = dir.resolve("sparks.y4m");
        try (OutputStream out = Files.newOutputStream(file)) {
            Y4mWriter.write(out, SparkScene.FRAMES);
        }
        video = Y4mVideo.open(file);
        tl = new RealTimeLine("spark", 8, 512, 1);
        int[][] shownBoxes = boxes;
        pipeline = new SparkPipeline(video, frameNanos, 20_000_000L, 25, () -> engine, p -> {
            int i = (int) p.frame();
            if (i < shownBoxes.length) {
                int[] b = shownBoxes[i];
                System.arraycopy(p.box(), 0, b, 0, 4);
                dx[i] = p.dx();
            }
        }, new FrameLog(4096));
        for (int i = 0; i < boxes.length; i++) {
            boxes[i] = new int[4];
        }
        engine = new ExecutionEngine(tl, pipeline);
        engine.start("spark-test", () -> {});
        assertNull(engine.awaitStarted(5_000));
    }

    @AfterEach
    void tearDown() throws Exception {
        if (engine == null) {
            return;
        }
        engine.stop();
        engine.join(2_000);
        video.close();
    }

    private void runFrames(long n) throws InterruptedException {
        long target = pipeline.framesDisplayed() + n;
        long cap = System.nanoTime() + 120_000_000_000L;
        while (pipeline.framesDisplayed() < target && System.nanoTime() < cap) {
            Thread.sleep(5);
        }
        assertTrue(pipeline.framesDisplayed() >= target, "liveness: " + pipeline.framesDisplayed() + " frames");
    }

    @Test
    void theWarmUpLeavesTheTableTheBoxTheLogAndTheFirstFrameAsTheyWere() throws Exception {
        open(FRAME_NANOS_CHECKED);
        pipeline.warmUp(SparkScene.FRAMES + 3);  // past the end: the video loops
        for (int r = 0; r < AdaptationTable.ROWS; r++) {
            assertTrue(!pipeline.table().observed(r), "row " + r + " observed by the warm-up");
        }
        assertEquals(-1, pipeline.box()[0]);
        assertEquals(0, pipeline.log().frames());
        assertEquals(0, pipeline.frame());
        assertEquals(0, video.malformed());
    }

    @Test
    void boxesAppearExactlyOnTheEventFramesInsideTheEventsAndTheDisplayInstantsKeepTheirGrid() throws Exception {
        open(FRAME_NANOS_CHECKED);
        pipeline.start(tl, tl.now());
        runFrames(250);
        engine.stop();
        engine.join(2_000);
        FrameLog log = pipeline.log();
        int withBox = 0;
        for (int k = 0; k < 250; k++) {
            long f = log.frame(k);
            assertEquals(k, f, "every frame displayed, in order");
            SparkScene.Event e = SparkScene.eventOn((int) f);
            int[] b = boxes[k];
            if (log.row(k) == AdaptationTable.NONE) {
                assertEquals(-1, b[0], "frame " + f + ": not analysed, no box");
                continue;
            }
            if (e == null) {
                assertEquals(-1, b[0], "frame " + f + ": no event, no box");
            } else {
                withBox++;
                assertTrue(b[0] >= e.x && b[2] < e.x + e.width && b[1] >= e.y && b[3] < e.y + e.height,
                        "frame " + f + ": box " + java.util.Arrays.toString(b) + " inside the " + e.kind);
                assertTrue(b[2] > b[0] && b[3] > b[1], "frame " + f + ": a box, not a point");
            }
            if (k > 0) {
                assertEquals(FRAME_NANOS_CHECKED, log.plannedDisplayNanos(k) - log.plannedDisplayNanos(k - 1),
                        "display instants on the frame grid, whatever happened");
            }
        }
        assertTrue(withBox >= 1, "of 2.5 passes over 14 event frames, analysed with a box: " + withBox);
        // The actions ran in the seed's order: read, parse, [analyse], display.
        PastTimeline past = tl.past();
        org.rtdroid.runtime.reflection.ExecutedInterval a = new org.rtdroid.runtime.reflection.ExecutedInterval();
        past.read(past.oldest(), a);
        int previous = a.classTag();  // the oldest entry kept may be anywhere in a cycle
        for (long s = past.oldest() + 1; s < past.recorded(); s++) {
            past.read(s, a);
            int tag = a.classTag();
            boolean ok = switch (tag) {
                case SparkPipeline.READ -> previous == SparkPipeline.DISPLAY;
                case SparkPipeline.PARSE -> previous == SparkPipeline.READ;
                case SparkPipeline.ANALYSE -> previous == SparkPipeline.PARSE;
                case SparkPipeline.DISPLAY -> previous == SparkPipeline.ANALYSE || previous == SparkPipeline.PARSE;
                default -> false;
            };
            assertTrue(ok, "action " + tag + " after " + previous + " at #" + s);
            previous = tag;
        }
        assertTrue(pipeline.table().observed(0), "the best quality was tried");
        assertEquals(0, pipeline.framesDropped());
    }

    @Test
    void theEngineThreadAllocatesNothingPerFrameAfterWarmUp() throws Exception {
        open(FRAME_NANOS);
        pipeline.start(tl, tl.now());
        runFrames(1_500);  // warm-up: the parse and scan loops get compiled
        long bytes = -1;
        for (int w = 0; w < 3 && bytes != 0; w++) {
            long before = HeapMeter.threadAllocatedBytes(engine.thread().threadId());
            runFrames(300);
            bytes = HeapMeter.threadAllocatedBytes(engine.thread().threadId()) - before;
        }
        assertEquals(0, bytes, "bytes the engine thread allocated over 300 frames (read, parse, analyse, display)");
    }
}
