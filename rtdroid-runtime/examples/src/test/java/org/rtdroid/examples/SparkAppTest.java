package org.rtdroid.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rtdroid.contract.spark.Spark;
import org.rtdroid.examples.spark.SparkDetectionService;
import org.rtdroid.runtime.boot.DeployedApp;
import org.rtdroid.runtime.boot.RuntimeHost;
import org.rtdroid.runtime.validation.ModelBuilder;
import org.rtdroid.runtime.validation.SystemModel;
import org.rtdroid.runtime.validation.Task;
import org.rtdroid.runtime.xcc.CrossContextIntent;
import org.rtdroid.video.SparkScene;

/**
 * The spark detection app deployed from its shipped manifest: one RESULT per frame on
 * {@code spark.result}, 40 ms apart in plan, with a box on the frames that have a spark or
 * lightning (inside it) and none on the others. Its manifest's engine enters the analysis.
 */
class SparkAppTest {
    private final RuntimeHost host = AppHarness.host();

    @AfterEach
    void tearDown() {
        host.shutdown();
    }

    @Test
    void eachFrameIsAnalysedAndItsResultCrossesToAndroidWithABoxOnlyOnTheSparks() throws Exception {
        DeployedApp app = AppHarness.deploy(host, "spark");
        var service = (SparkDetectionService) app.component(SparkDetectionService.class.getName());
        CrossContextIntent out = new CrossContextIntent();
        Spark.FrameResult r = new Spark.FrameResult();
        int[] seen = {0};
        int[] withBox = {0};
        long[] lastPlanned = {0};
        AppHarness.await("50 frames' results", 60_000, () -> {
            while (host.crossContext().pollOutbound(out)) {
                if (!out.channelEquals(Spark.FrameResult.CHANNEL)) {
                    continue;
                }
                assertTrue(out.actionEquals(Spark.FrameResult.ACTION_RESULT));
                assertTrue(out.payloadLength() <= Spark.FrameResult.MAX_BYTES);
                assertEquals(org.rtdroid.contract.spark.SparkCodec.OK, r.decode(out.payload(), 0, out.payloadLength()), "decodes");
                int frame = (int) r.frame();
                assertEquals(seen[0], frame, "every frame, in order");
                long planned = r.plannedDisplayNanos();
                if (frame > 0) {
                    assertEquals(40_000_000L, planned - lastPlanned[0], "25 frames a second, in plan");
                }
                lastPlanned[0] = planned;
                assertTrue(r.actualDisplayNanos() >= planned - 1_000_000L, "not displayed early");
                SparkScene.Event e = SparkScene.eventOn(frame);
                boolean analysed = r.dx() > 0;
                boolean box = r.x0() >= 0;
                if (analysed && e != null) {
                    withBox[0]++;
                    assertTrue(box, "frame " + frame + " has a " + e.kind);
                    assertTrue(r.x0() >= e.x && r.x1() < e.x + e.width && r.y0() >= e.y && r.y1() < e.y + e.height,
                            "frame " + frame + ": box inside the " + e.kind);
                } else if (e == null) {
                    assertTrue(!box, "frame " + frame + " has no spark: no box");
                }
                assertTrue(r.readBeginUs() < r.parseBeginUs());
                seen[0]++;
            }
            return seen[0] >= 50;
        });
        // of the events of frames 8, 9, 20, 33-35, 47, 48 (one left without time by a loaded machine is no failure)
        assertTrue(withBox[0] >= 1, "event frames analysed: " + withBox[0]);
        assertTrue(service.published() >= 50);
        assertEquals(200_000L, service.engine().wakeGuardNanos(), "the manifest's wake guard");
        assertTrue(service.pipeline().table().observed(0));
    }

    @Test
    void theManifestPutsTheEngineIntoTheAnalysisAboveTheService() throws Exception {
        Path m = Path.of("src/main/manifests/spark/manifest.xml");
        SystemModel model = ModelBuilder.read(m.toString(), Files.readAllBytes(m));
        Task engine = model.tasks().stream().filter(t -> t.key().equals("spark/SparkDetectionService.engine")).findFirst()
                .orElseThrow(() -> new AssertionError("no engine task: " + model.tasks()));
        assertEquals(85, engine.priority());
        assertEquals(40_000_000L, engine.periodNanos());
        assertEquals(12_200_000L, engine.costNanos(), "its budget and one spin of its 200 us wake guard");
        assertTrue(new String(Files.readAllBytes(m), StandardCharsets.UTF_8).contains("engine-priority=\"85\""));
    }
}
