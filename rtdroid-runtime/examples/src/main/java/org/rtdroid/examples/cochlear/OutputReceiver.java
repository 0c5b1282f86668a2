package org.rtdroid.examples.cochlear;

import static org.rtdroid.examples.cochlear.CochlearProtocol.*;

import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.component.RealtimeReceiver;

/**
 * Stands in for the implanted device: checks every processed block the ProcessingService
 * broadcasts on {@code cochlear.output}. A block is sane when its layout is complete, every figure
 * is finite, the 8 electrode levels lie in [0, 1], the peak in [0, 1], the levels in
 * [-120, 0] dBFS, and block numbers only increase (a gap is a block lost on the way).
 */
public final class OutputReceiver extends RealtimeReceiver {
    private volatile long checked;
    private volatile long violations;
    private volatile long gaps;
    private volatile float lastOutputDbfs = MIN_DBFS;
    private volatile float lastLevelSum;
    private long lastBlock = -1;

    @Override
    public void onReceive(RealtimeIntent intent) {
        checked++;
        if (!intent.hasAction(ACTION_OUTPUT) || intent.payloadLength() != OUT_BYTES) {
            violations++;
            return;
        }
        long block = intent.getLong(OUT_BLOCK_OFFSET);
        if (lastBlock >= 0) {
            if (block <= lastBlock) {
                violations++;
            } else if (block > lastBlock + 1) {
                gaps += block - lastBlock - 1;
            }
        }
        lastBlock = block;
        float in = intent.getFloat(OUT_INPUT_DBFS_OFFSET);
        float out = intent.getFloat(OUT_OUTPUT_DBFS_OFFSET);
        float peak = intent.getFloat(OUT_PEAK_OFFSET);
        boolean ok = saneDbfs(in) && saneDbfs(out) && peak >= 0f && peak <= 1f;
        float sum = 0;
        for (int b = 0; b < BANDS; b++) {
            float level = intent.getFloat(OUT_LEVELS_OFFSET + 4 * b);
            ok &= level >= 0f && level <= 1f; // false for NaN too
            sum += level;
        }
        if (!ok) {
            violations++;
        }
        lastOutputDbfs = out;
        lastLevelSum = sum;
    }

    private static boolean saneDbfs(float v) {
        return v >= MIN_DBFS && v <= 0.001f; // NaN fails both comparisons
    }

    /** Blocks checked. */
    public long checked() { return checked; }

    /** Blocks that were malformed, out of range, non-finite or out of order. */
    public long violations() { return violations; }

    /** Blocks that never arrived (gaps in the block numbers). */
    public long gaps() { return gaps; }

    public float lastOutputDbfs() { return lastOutputDbfs; }

    public float lastLevelSum() { return lastLevelSum; }
}
