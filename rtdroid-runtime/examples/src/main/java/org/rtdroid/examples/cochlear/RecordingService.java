package org.rtdroid.examples.cochlear;

import static org.rtdroid.examples.cochlear.CochlearProtocol.AUDIO_BLOCK_OFFSET;
import static org.rtdroid.examples.cochlear.CochlearProtocol.AUDIO_CHANNEL;
import static org.rtdroid.examples.cochlear.CochlearProtocol.AUDIO_SAMPLES_OFFSET;
import static org.rtdroid.examples.cochlear.CochlearProtocol.SAMPLES_PER_BLOCK;
import static org.rtdroid.examples.cochlear.CochlearProtocol.SAMPLE_RATE_HZ;

import org.rtdroid.logic.cochlear.SpeechSource;
import org.rtdroid.runtime.channel.BulkClosure;
import org.rtdroid.runtime.channel.BulkPublisher;
import org.rtdroid.runtime.channel.ChannelSender;
import org.rtdroid.runtime.channel.MessageStolenException;
import org.rtdroid.runtime.component.PeriodicTask;
import org.rtdroid.runtime.component.RealtimeService;
import org.rtdroid.runtime.memory.TransferScope;

/**
 * Records 128 samples (8 ms at 16 kHz) per release from the simulated microphone and hands them to
 * the ProcessingService over the bulk channel {@code cochlear.audio}: the samples are written
 * straight into a transfer scope whose ownership then moves to the receiver (no copy).
 */
public final class RecordingService extends RealtimeService {
    private final SpeechSource microphone = new SpeechSource(SAMPLE_RATE_HZ, 0.01);
    private final float[] block = new float[SAMPLES_PER_BLOCK];
    private BulkPublisher audio;
    private volatile long blocksSent;
    private volatile long blocksRefused;
    private volatile long blocksReclaimed;
    private long blockNumber;

    private final class RecordingTask extends PeriodicTask implements BulkClosure {
        @Override
        public void onRelease() {
            microphone.next(block, SAMPLES_PER_BLOCK);
            try {
                if (audio.send(this) == ChannelSender.SENT) {
                    blocksSent++;
                } else {
                    blocksRefused++;
                }
            } catch (MessageStolenException e) {
                // Earlier blocks were reclaimed unread: processing fell behind. Counted, and this
                // block is sent on the next release (the notice is pre-allocated: no garbage).
                blocksReclaimed += e.stolenCount();
            }
            blockNumber++;
        }

        @Override
        public void genMsg(TransferScope scope) {
            long base = scope.allocate(AUDIO_SAMPLES_OFFSET + 4L * SAMPLES_PER_BLOCK);
            scope.putLong(base + AUDIO_BLOCK_OFFSET, blockNumber);
            scope.copyFrom(block, 0, base + AUDIO_SAMPLES_OFFSET, SAMPLES_PER_BLOCK);
        }
    }

    @Override
    public void onCreate() {
        audio = bulkPublisher(AUDIO_CHANNEL);
        // The microphone's synthesis run on a source of its own before the first release, so the
        // JIT has compiled it (ProcessingService.WARMUP_BLOCKS): the real source is untouched.
        SpeechSource warmUp = new SpeechSource(SAMPLE_RATE_HZ, 0.01);
        for (int k = 0; k < ProcessingService.WARMUP_BLOCKS; k++) {
            warmUp.next(block, SAMPLES_PER_BLOCK);
        }
    }

    @Override
    public void onStartCommand() {
        registerTask("recordingTask", new RecordingTask());
    }

    public long blocksSent() { return blocksSent; }

    public long blocksRefused() { return blocksRefused; }

    /** Blocks dropped unread because processing fell behind. */
    public long blocksReclaimed() { return blocksReclaimed; }
}
