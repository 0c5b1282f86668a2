package org.rtdroid.examples.cochlear;

import static org.rtdroid.examples.cochlear.CochlearProtocol.*;

import org.rtdroid.logic.cochlear.SignalPath;
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
    private final float[] levels = new float[BANDS];

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
        float sum = 0;
        for (int b = 0; b < BANDS; b++) {
            levels[b] = intent.getFloat(OUT_LEVELS_OFFSET + 4 * b);
            sum += levels[b];
        }
        if (!SignalPath.sane(in, out, peak, levels)) {
            violations++;
        }
        lastOutputDbfs = out;
        lastLevelSum = sum;
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
