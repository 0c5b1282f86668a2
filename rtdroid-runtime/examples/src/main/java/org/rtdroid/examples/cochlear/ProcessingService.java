package org.rtdroid.examples.cochlear;

import static org.rtdroid.examples.cochlear.CochlearProtocol.*;

import org.rtdroid.contract.cochlear.Cochlear.SetConfig;
import org.rtdroid.contract.cochlear.Cochlear.Status;
import org.rtdroid.contract.cochlear.CochlearCodec;
import org.rtdroid.logic.cochlear.SignalPath;
import org.rtdroid.runtime.channel.BroadcastPublisher;
import org.rtdroid.runtime.channel.BulkChannel;
import org.rtdroid.runtime.channel.BulkHandler;
import org.rtdroid.runtime.channel.MessageChannel;
import org.rtdroid.runtime.channel.MessageClosure;
import org.rtdroid.runtime.channel.MessageStolenException;
import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.component.PeriodicTask;
import org.rtdroid.runtime.component.RealtimeService;
import org.rtdroid.runtime.memory.Scope;
import org.rtdroid.runtime.memory.TransferScope;
import org.rtdroid.runtime.xcc.CrossContextClosure;
import org.rtdroid.runtime.xcc.CrossContextIntent;
import org.rtdroid.runtime.xcc.CrossContextPublisher;

/**
 * The cochlear implant's signal processing, every 8 ms on 128 samples: the app's
 * {@link SignalPath} (filter bank, envelopes, noise reduction, compression, volume, limiter; the
 * logic its RTSJ-style and Android versions run too), whose output levels are broadcast to the
 * OutputReceiver on {@code cochlear.output}.
 * Volume (0..100, 50 = unity) and noise reduction (0/1) arrive from the Android ConfigurationUI as a
 * {@link SetConfig} (the app's contract, {@code bridge/contracts/cochlear.proto}); each accepted or
 * refused request is answered by a CONFIG_ACK {@link Status}, and a STATUS follows every 25 releases
 * (200 ms). Both are decoded and encoded in place, in the runtime's pre-allocated intents.
 *
 * <p>Filter coefficients and states live in the service's persistent scope (a {@link SignalPath.State}
 * over it); the audio block is
 * read from the transfer scope it arrived in (moved, not copied, from the RecordingService) into
 * working buffers allocated once with the component.
 *
 * <p>Its cost overruns are handled (the manifest's {@code <cost-overrun-handler>}): a release that
 * used more CPU time than its declared 1 ms drops the processing to a cheaper filter bank (the 4
 * even bands; each odd electrode takes its lower neighbour's level), which halves the filtering
 * work; after {@link #CHEAP_RELEASES} releases (1 s) the task goes back to the full bank, and a
 * further overrun drops it again. {@link #cheapMode()} and {@link #modeChanges()} say where it is.
 *
 * <p>The signal path is run on synthetic blocks while the service is created, and its state reset
 * after, and so are the status encode and the configuration decode: the JVM's JIT has then
 * compiled them before the first release. Cold, the first ~25 releases ran partly interpreted and
 * used up to 2.6 ms of CPU against the declared 1 ms WCET (qemu-x86_64, virtual time); see
 * {@link #WARMUP_BLOCKS}.
 */
public final class ProcessingService extends RealtimeService {
    /**
     * Synthetic blocks the signal path runs at creation: past the JIT's first compile threshold
     * (200 invocations) with room for the compile itself to finish before the first release.
     */
    static final int WARMUP_BLOCKS = 400;
    /** Releases the cheaper filter bank runs before the full one is tried again (1 s at 8 ms). */
    static final int CHEAP_RELEASES = 125;

    private BulkChannel audio;
    private MessageChannel config;
    private BroadcastPublisher output;
    private CrossContextPublisher status;
    private final RealtimeIntent request = new RealtimeIntent(SetConfig.CHANNEL, SetConfig.MAX_BYTES);
    private SignalPath signal;
    private final ProcessingTask task = new ProcessingTask();

    private volatile int volume = 50;
    private volatile int noiseReduction;
    private volatile float inputDbfs = SignalPath.MIN_DBFS;
    private volatile float outputDbfs = SignalPath.MIN_DBFS;
    private volatile long blocksProcessed;
    private volatile long blocksMissing;
    private volatile long configsAccepted;
    private volatile long configsRefused;
    private volatile long statusRefused;
    /** Written by the cost-overrun handler (to true) and by the task (back to false). */
    private volatile boolean cheap;
    private volatile long modeChanges;

    @Override
    public void onCreate() {
        audio = bulkChannel(AUDIO_CHANNEL);
        config = messageChannel(SetConfig.CHANNEL);
        output = broadcastPublisher(OUTPUT_CHANNEL);
        status = crossContextPublisher(Status.CHANNEL);
        signal = new SignalPath(new ScopeState(persistentScope()));
        signal.warmUp(WARMUP_BLOCKS);
        task.warmUpCodec();
    }

    /** The signal path's state in the service's persistent scope. */
    private static final class ScopeState implements SignalPath.State {
        private final Scope scope;
        private final long base;

        ScopeState(Scope scope) {
            this.scope = scope;
            this.base = scope.allocateDoubles(SignalPath.STATE_DOUBLES);
        }

        @Override
        public double get(int index) {
            return scope.getDouble(base + 8L * index);
        }

        @Override
        public void set(int index, double value) {
            scope.putDouble(base + 8L * index, value);
        }
    }

    @Override
    public void onStartCommand() {
        registerTask("processingTask", task);
        // Released at the handler's priority after a release overran its cost: the cheaper bank.
        onCostOverrun("processingTask", job -> {
            if (!cheap) {
                cheap = true;
                modeChanges++;
            }
        });
    }

    private final class ProcessingTask extends PeriodicTask implements BulkHandler, MessageClosure, CrossContextClosure {
        // The block's samples: allocated once with the component, reused by every release.
        private final float[] x = new float[SAMPLES_PER_BLOCK];
        private final SetConfig setConfig = new SetConfig();
        private final Status statusRecord = new Status();
        private long block = -1;
        private long lastBlock = -1;
        private int cheapReleases;
        private boolean ack;

        @Override
        public void onRelease() {
            // 1. Configuration from the Android cell (at most the 4 per release the manifest declares).
            for (int i = 0; i < 4 && config.receive(request); i++) {
                applyConfig();
            }
            // 2. The newest audio block(s): process every block waiting, in order.
            boolean any = false;
            while (audio.receive(this)) {
                any = true;
            }
            if (!any) {
                blocksMissing++;
            }
            // 3. Back to the full filter bank after a second of the cheap one.
            if (cheap && ++cheapReleases >= CHEAP_RELEASES) {
                cheapReleases = 0;
                cheap = false;
                modeChanges++;
            }
            // 4. Status every 25 releases.
            if ((releases() + 1) % STATUS_EVERY_RELEASES == 0) {
                ack = false;
                if (status.publish(this) != CrossContextPublisher.PUBLISHED) {
                    statusRefused++;
                }
            }
        }

        private void applyConfig() {
            boolean ok = request.hasAction(SetConfig.ACTION_SET_CONFIG)
                    && setConfig.decode(request.payload(), 0, request.payloadLength()) == CochlearCodec.OK;
            int v = ok ? setConfig.volume() : 0;
            int nr = ok ? setConfig.noiseReduction() : 0;
            if (ok && v >= 0 && v <= 100 && (nr == 0 || nr == 1)) {
                volume = v;
                noiseReduction = nr;
                configsAccepted++;
            } else {
                configsRefused++; // answered with the unchanged configuration
            }
            ack = true;
            if (status.reply(request, this) != CrossContextPublisher.PUBLISHED) {
                statusRefused++;
            }
        }

        /**
         * Runs the app contract's codec {@link #WARMUP_BLOCKS} times (the status encode and the
         * configuration decode), sending nothing, then clears both records. Allocates (a buffer and
         * a sample record of its own): it runs at creation, never in a release.
         */
        void warmUpCodec() {
            byte[] wire = new byte[Math.max(Status.MAX_BYTES, SetConfig.MAX_BYTES)];
            SetConfig sample = new SetConfig();
            for (int k = 0; k < WARMUP_BLOCKS; k++) {
                // Cold, the first STATUS (release 25) alone used 2.7 ms of CPU against the
                // declared 1 ms (qemu-arm64-xen, virtual time).
                fillStatus(k, 0, 0).encode(wire, 0);
                int n = sample.clear().volume(k % 101).noiseReduction(k & 1).encode(wire, 0);
                setConfig.decode(wire, 0, n);
            }
            setConfig.clear();
            statusRecord.clear();
        }

        /** One 128-sample block, read in place from the transfer scope. */
        @Override
        public void onBulk(TransferScope in) {
            block = in.getLong(AUDIO_BLOCK_OFFSET);
            if (lastBlock >= 0 && block != lastBlock + 1) {
                blocksMissing += Math.max(0, block - lastBlock - 1);
            }
            lastBlock = block;
            in.copyTo(AUDIO_SAMPLES_OFFSET, x, 0, SAMPLES_PER_BLOCK); // the one read of the transfer scope
            signal.process(x, volume / 50.0, noiseReduction != 0, cheap);
            inputDbfs = signal.inputDbfs();
            outputDbfs = signal.outputDbfs();
            blocksProcessed++;
            try {
                output.broadcast(this);
            } catch (MessageStolenException e) {
                // Our own earlier output was reclaimed (the receiver is behind); counted by the channel.
            }
        }

        /** Fills the cochlear.output intent. */
        @Override
        public void genMsg(RealtimeIntent m) {
            m.setAction(ACTION_OUTPUT);
            m.putLong(OUT_BLOCK_OFFSET, block);
            m.putFloat(OUT_INPUT_DBFS_OFFSET, inputDbfs);
            m.putFloat(OUT_OUTPUT_DBFS_OFFSET, outputDbfs);
            m.putFloat(OUT_PEAK_OFFSET, signal.peak());
            float[] levels = signal.levels();
            for (int b = 0; b < BANDS; b++) {
                m.putFloat(OUT_LEVELS_OFFSET + 4 * b, levels[b]);
            }
        }

        /** Fills a CONFIG_ACK (the reply to {@code request}) or a STATUS. */
        @Override
        public void genMsg(CrossContextIntent out) {
            out.setAction(ack ? Status.ACTION_CONFIG_ACK : Status.ACTION_STATUS);
            out.setSender(SENDER);
            out.setSenderPriority(Status.PRIORITY); // a reply travels in the requester's class instead
            // at most Status.MAX_BYTES (65), within the payload's 224: cannot fail
            out.setPayloadLength(fillStatus(releases() + 1, applicationDeadlineMisses(), applicationWorstLatenessNanos())
                    .encode(out.payload(), 0));
        }

        /** The status record of the configuration and levels in force. */
        private Status fillStatus(long releases, long misses, long worstLatenessNanos) {
            return statusRecord.clear().releases(releases).deadlineMisses(misses).worstLatenessNanos(worstLatenessNanos)
                    .volume(volume).noiseReduction(noiseReduction).inputRmsDbfs(inputDbfs).outputRmsDbfs(outputDbfs);
        }
    }

    public int volume() { return volume; }
    public int noiseReduction() { return noiseReduction; }
    public float inputDbfs() { return inputDbfs; }
    public float outputDbfs() { return outputDbfs; }
    public long blocksProcessed() { return blocksProcessed; }
    public long blocksMissing() { return blocksMissing; }
    public long configsAccepted() { return configsAccepted; }
    public long configsRefused() { return configsRefused; }
    public long statusRefused() { return statusRefused; }
    /** Whether the cheaper filter bank runs (after a cost overrun, for {@link #CHEAP_RELEASES} releases). */
    public boolean cheapMode() { return cheap; }
    /** Switches between the full and the cheap filter bank so far. */
    public long modeChanges() { return modeChanges; }
}
