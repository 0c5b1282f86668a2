package org.rtdroid.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rtdroid.examples.cochlear.CochlearProtocol.*;

import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rtdroid.contract.cochlear.Cochlear.SetConfig;
import org.rtdroid.contract.cochlear.Cochlear.Status;
import org.rtdroid.contract.cochlear.CochlearCodec;
import org.rtdroid.examples.cochlear.OutputReceiver;
import org.rtdroid.examples.cochlear.ProcessingService;
import org.rtdroid.examples.cochlear.RecordingService;
import org.rtdroid.logic.cochlear.SpeechSource;
import org.rtdroid.runtime.boot.DeployedApp;
import org.rtdroid.runtime.boot.RuntimeHost;
import org.rtdroid.runtime.boot.ServiceStatus;
import org.rtdroid.runtime.xcc.CrossContextEndpoint;
import org.rtdroid.runtime.xcc.CrossContextIntent;

class CochlearAppTest {
    private final RuntimeHost host = AppHarness.host();

    @AfterEach
    void tearDown() {
        host.shutdown();
    }

    private static byte[] config(int volume, int noiseReduction) {
        byte[] b = new byte[SetConfig.MAX_BYTES];
        return Arrays.copyOf(b, new SetConfig().volume(volume).noiseReduction(noiseReduction).encode(b, 0));
    }

    /** The Status an outbound intent carries (the contract's decoder; fails the test if it is not one). */
    private static Status status(CrossContextIntent out) {
        Status s = new Status();
        int r = s.decode(out.payload(), 0, out.payloadLength());
        assertEquals(CochlearCodec.OK, r, CochlearCodec.describe(r));
        return s;
    }

    /** Polls outbound until an intent with that action (and correlation id, if not -1) arrives. */
    private CrossContextIntent awaitOutbound(String action, long correlationId) throws InterruptedException {
        CrossContextIntent out = new CrossContextIntent();
        AppHarness.await(action + " " + correlationId, 60_000, () -> {
            while (host.crossContext().pollOutbound(out)) {
                if (out.actionEquals(action) && (correlationId < 0 || out.correlationId() == correlationId)) {
                    return true;
                }
            }
            return false;
        });
        return out;
    }

    /**
     * With a cost of 1 µs every release overruns: the cost-overrun handler drops the processing to
     * the cheaper filter bank, the task goes back to the full one after 125 releases, and the next
     * overrun drops it again. The audio stays sane in both.
     */
    @Test
    void aCostOverrunDropsProcessingToTheCheaperFilterBankAndItComesBack() throws Exception {
        DeployedApp app = AppHarness.deploy(host, "cochlear",
                xml -> xml.replace("name=\"processingTask\" wcet=\"1ms\"", "name=\"processingTask\" wcet=\"1us\""));
        var processing = (ProcessingService) app.component(ProcessingService.class.getName());
        var output = (OutputReceiver) app.component(OutputReceiver.class.getName());
        AppHarness.await("cheap, full and cheap again", 60_000, () -> processing.modeChanges() >= 3);
        var task = app.componentRuntime("ProcessingService").tasks().get(0);
        assertTrue(task.jobs().overrunReleases() >= 2, "the handler was released on overruns");
        assertEquals(0, output.violations(), "every block is bounded, finite and sane in either mode");
    }

    @Test
    void recordsProcessesAndChecksAudioAndTakesConfigurationFromAndroid() throws Exception {
        DeployedApp app = AppHarness.deploy(host, "cochlear");
        var recording = (RecordingService) app.component(RecordingService.class.getName());
        var processing = (ProcessingService) app.component(ProcessingService.class.getName());
        var output = (OutputReceiver) app.component(OutputReceiver.class.getName());
        AppHarness.await("50 checked blocks", 60_000, () -> output.checked() >= 50);
        assertTrue(recording.blocksSent() >= 50);
        assertTrue(processing.blocksProcessed() >= 50);
        assertEquals(0, output.violations(), "every processed block is bounded, finite and sane");

        // SET_CONFIG from the ConfigurationUI: applied, answered with CONFIG_ACK + status record.
        assertEquals(CrossContextEndpoint.DELIVERED, AppHarness.deliver(host, SetConfig.CHANNEL, SetConfig.ACTION_SET_CONFIG,
                "org.rtdroid.cochlear.ui", 4242, config(80, 1)));
        CrossContextIntent ack = awaitOutbound(Status.ACTION_CONFIG_ACK, 4242);
        assertTrue(ack.channelEquals(Status.CHANNEL));
        assertTrue(ack.payloadLength() <= Status.MAX_BYTES, "a Status: " + ack.payloadLength() + " bytes");
        Status acked = status(ack);
        assertEquals(80, acked.volume());
        assertEquals(1, acked.noiseReduction());
        // The task's own release count: under load the runtime skips releases while the service
        // catches up on waiting blocks, so it may trail the 50 checked blocks; it has begun.
        assertTrue(acked.releases() >= 1, "releases " + acked.releases());
        float in = acked.inputRmsDbfs();
        assertTrue(in > -120f && in <= 0f, "input level " + in);
        assertTrue(ack.rtReceiveNanos() > 0);

        // Out-of-range values are refused (the ACK shows the unchanged configuration).
        AppHarness.deliver(host, SetConfig.CHANNEL, SetConfig.ACTION_SET_CONFIG, "org.rtdroid.cochlear.ui", 4243,
                config(150, 1));
        CrossContextIntent refused = awaitOutbound(Status.ACTION_CONFIG_ACK, 4243);
        assertEquals(80, status(refused).volume());
        assertEquals(1, processing.configsRefused());
        // A payload that is not a SetConfig is refused too (the ACK still answers it).
        AppHarness.deliver(host, SetConfig.CHANNEL, SetConfig.ACTION_SET_CONFIG, "org.rtdroid.cochlear.ui", 4245,
                new byte[] {(byte) 0x80});
        assertEquals(80, status(awaitOutbound(Status.ACTION_CONFIG_ACK, 4245)).volume());
        assertEquals(2, processing.configsRefused());
        // A sender the manifest does not allow never reaches the service.
        assertEquals(CrossContextEndpoint.SENDER_NOT_ALLOWED,
                AppHarness.deliver(host, SetConfig.CHANNEL, SetConfig.ACTION_SET_CONFIG, "org.evil", 1, config(0, 0)));

        // STATUS every 25 releases, with increasing release counts.
        CrossContextIntent s1 = awaitOutbound(Status.ACTION_STATUS, -1);
        long r1 = status(s1).releases();
        assertEquals(0, r1 % STATUS_EVERY_RELEASES, "STATUS on every 25th release");
        CrossContextIntent s2 = awaitOutbound(Status.ACTION_STATUS, -1);
        assertEquals(r1 + STATUS_EVERY_RELEASES, status(s2).releases());

        // Volume 0 really silences the output: the DSP uses the configuration.
        AppHarness.deliver(host, SetConfig.CHANNEL, SetConfig.ACTION_SET_CONFIG, "org.rtdroid.cochlear.ui", 4244,
                config(0, 0));
        awaitOutbound(Status.ACTION_CONFIG_ACK, 4244);
        long seen = output.checked();
        AppHarness.await("blocks at volume 0", 60_000, () -> output.checked() > seen + 5);
        assertEquals(MIN_DBFS, output.lastOutputDbfs(), 0.0f);
        assertEquals(0f, output.lastLevelSum(), 0.0f);
        assertEquals(MIN_DBFS, processing.outputDbfs(), 0.0f);
        assertEquals(0, output.violations());

        for (ServiceStatus st : host.services()) {
            assertEquals("RUNNING", st.state(), st.toString());
            assertEquals(0, st.failures(), st.toString());
        }
    }

    @Test
    void theSimulatedMicrophoneIsDeterministicAndSpeechLike() {
        SpeechSource a = new SpeechSource(SAMPLE_RATE_HZ, 0.01);
        SpeechSource b = new SpeechSource(SAMPLE_RATE_HZ, 0.01);
        float[] x = new float[SAMPLES_PER_BLOCK];
        float[] y = new float[SAMPLES_PER_BLOCK];
        double speech = 0;
        double pause = 0;
        for (int block = 0; block < 250; block++) { // 2 s: 1.6 s of speech, 0.4 s of pause
            a.next(x, SAMPLES_PER_BLOCK);
            b.next(y, SAMPLES_PER_BLOCK);
            double e = 0;
            for (int i = 0; i < SAMPLES_PER_BLOCK; i++) {
                assertEquals(x[i], y[i], 0.0f);
                assertTrue(x[i] >= -1f && x[i] <= 1f);
                e += x[i] * x[i];
            }
            if (block < 200) {
                speech += e;
            } else {
                pause += e;
            }
        }
        double speechDb = 10 * Math.log10(speech / (200.0 * SAMPLES_PER_BLOCK));
        double pauseDb = 10 * Math.log10(pause / (50.0 * SAMPLES_PER_BLOCK));
        assertTrue(speechDb > -30 && speechDb < -3, "speech level " + speechDb + " dBFS");
        assertTrue(pauseDb < speechDb - 15, "pauses are quiet: " + pauseDb + " dBFS");
    }
}
