package org.rtdroid.bench.tasks;

import java.util.ArrayList;
import java.util.List;
import org.rtdroid.logic.cochlear.SignalPath;
import org.rtdroid.logic.cochlear.SpeechSource;
import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.os.RealtimePolicy;
import org.rtdroid.runtime.os.RealtimeThreads;

/**
 * The cochlear implant as an RTSJ programmer writes it without RTDroid (Table 4.2's "RTSJ" column):
 * the same {@link SignalPath} and {@link SpeechSource}, on three real-time threads the program
 * creates and releases itself (SCHED_FIFO 90, 89, 88 on one CPU, the manifest's priorities; an
 * absolute-time sleep per period), handing blocks over through shared buffers guarded by monitors:
 * no channels, no scopes, no manifest. Recording every 8 ms; processing 4 ms later (it takes the
 * newest block, processes it and publishes the levels); the output check runs when the levels are
 * published (a thread waiting on the output buffer's monitor, as an RTSJ async event handler).
 */
public final class CochlearRtsj {
    public static final long PERIOD_NANOS = 8_000_000L;
    static final int RECORDING_PRIORITY = 90;
    static final int PROCESSING_PRIORITY = 89;
    static final int OUTPUT_PRIORITY = 88;
    static final int WARMUP_BLOCKS = 400;

    /** The recording's blocks, newest kept: guarded by its monitor. */
    static final class AudioBuffer {
        private final float[] block = new float[SignalPath.SAMPLES_PER_BLOCK];
        private long written;
        private long taken;

        synchronized void put(float[] samples) {
            System.arraycopy(samples, 0, block, 0, block.length);
            written++;
        }

        /** @return false when no new block arrived since the last take */
        synchronized boolean takeNewest(float[] into) {
            if (written == taken) {
                return false;
            }
            System.arraycopy(block, 0, into, 0, block.length);
            taken = written;
            return true;
        }
    }

    /** The processed block's figures, for the output check: guarded by its monitor. */
    static final class OutputBuffer {
        private final float[] levels = new float[SignalPath.BANDS];
        private float peak;
        private float inputDbfs;
        private float outputDbfs;
        private long published;
        private long checked;
        long violations;

        synchronized void publish(SignalPath p) {
            System.arraycopy(p.levels(), 0, levels, 0, levels.length);
            peak = p.peak();
            inputDbfs = p.inputDbfs();
            outputDbfs = p.outputDbfs();
            published++;
            notifyAll();
        }

        /** Waits for the next published block and checks it; @return false when stopped */
        synchronized boolean checkNext(java.util.function.BooleanSupplier running) throws InterruptedException {
            while (published == checked) {
                if (!running.getAsBoolean()) {
                    return false;
                }
                wait(50);
            }
            checked = published;
            if (!SignalPath.sane(inputDbfs, outputDbfs, peak, levels)) {
                violations++;
            }
            return true;
        }

        synchronized void wake() {
            notifyAll();
        }
    }

    private final AudioBuffer audio = new AudioBuffer();
    private final OutputBuffer output = new OutputBuffer();
    private volatile boolean running = true;
    private long blocksMissing;

    /** Runs until {@code into} has its releases of the processing task; @return output violations */
    public long run(CpuSet cpu, TaskDurations into) throws InterruptedException {
        SignalPath signal = new SignalPath(new SignalPath.ArrayState());
        signal.warmUp(WARMUP_BLOCKS);
        SpeechSource warm = new SpeechSource(SignalPath.SAMPLE_RATE_HZ, 0.01);
        float[] scratch = new float[SignalPath.SAMPLES_PER_BLOCK];
        for (int k = 0; k < WARMUP_BLOCKS; k++) {
            warm.next(scratch, scratch.length);
        }
        long start = Linux.monotonicNanos() + 20_000_000L;
        List<Thread> threads = new ArrayList<>();
        threads.add(RealtimeThreads.start("rtsj-cochlear-recording", new RealtimePolicy(RECORDING_PRIORITY, cpu, 1), () -> {
            SpeechSource microphone = new SpeechSource(SignalPath.SAMPLE_RATE_HZ, 0.01);
            float[] block = new float[SignalPath.SAMPLES_PER_BLOCK];
            for (long next = start; running; next += PERIOD_NANOS) {
                Linux.sleepUntilNanos(next);
                microphone.next(block, block.length);
                audio.put(block);
            }
        }));
        threads.add(RealtimeThreads.start("rtsj-cochlear-processing", new RealtimePolicy(PROCESSING_PRIORITY, cpu, 1), () -> {
            float[] x = new float[SignalPath.SAMPLES_PER_BLOCK];
            for (long release = start + PERIOD_NANOS / 2; running; release += PERIOD_NANOS) {
                Linux.sleepUntilNanos(release);
                long begin = Linux.monotonicNanos();
                if (audio.takeNewest(x)) {
                    signal.process(x, 1.0, false, false);
                    output.publish(signal);
                } else {
                    blocksMissing++;
                }
                long end = Linux.monotonicNanos();
                if (!into.record(release, begin, end)) {
                    running = false;
                }
                if (end - release > PERIOD_NANOS) { // overran: the next release is the next period after now
                    release += (end - release) / PERIOD_NANOS * PERIOD_NANOS;
                }
            }
        }));
        threads.add(RealtimeThreads.start("rtsj-cochlear-output", new RealtimePolicy(OUTPUT_PRIORITY, cpu, 1), () -> {
            try {
                while (output.checkNext(() -> running)) {
                    // checked
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        for (Thread t : threads) {
            t.join();
        }
        output.wake();
        return output.violations;
    }

    public long blocksMissing() {
        return blocksMissing;
    }
}
