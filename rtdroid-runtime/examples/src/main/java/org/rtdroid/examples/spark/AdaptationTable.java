package org.rtdroid.examples.spark;

/**
 * The strategist's adaptation table (seed 004, Table 1): per analysis quality (horizontal and
 * vertical step), the longest analysis observed so far and the frame it was observed on.
 * {@link #lookup} picks the best quality whose longest analysis fits the time available, trying a
 * quality not observed yet (it may fit) before falling back, and the cheapest one when nothing
 * known fits (in the hope that it does); {@link #update} refines a row with each analysis's
 * actual duration. Allocation-free.
 */
public final class AdaptationTable {
    /** The seed's rows, best quality first: (dx, dy) = (1,1), (1,2), (1,3), (2,2), (2,3). */
    static final int[] DX = {1, 1, 1, 2, 2};
    static final int[] DY = {1, 2, 3, 2, 3};
    public static final int ROWS = DX.length;
    /** {@link #lookup}: no time left, no analysis. */
    public static final int NONE = -1;

    private final long[] longestNanos = new long[ROWS];
    private final long[] frameOf = new long[ROWS];
    private final boolean[] observed = new boolean[ROWS];

    public static int dx(int row) { return DX[row]; }
    public static int dy(int row) { return DY[row]; }

    /**
     * The row to analyse at, given {@code availableNanos} before the display: the first (best) row
     * that is unobserved or whose longest analysis fits; the last row when none does; {@link #NONE}
     * when no time is left.
     */
    public int lookup(long availableNanos) {
        if (availableNanos <= 0) {
            return NONE;
        }
        for (int r = 0; r < ROWS; r++) {
            if (!observed[r] || longestNanos[r] <= availableNanos) {
                return r;
            }
        }
        return ROWS - 1;
    }

    /** Refines row {@code row} with an analysis of {@code durationNanos} on frame {@code frame}. */
    public void update(int row, long durationNanos, long frame) {
        if (!observed[row] || durationNanos > longestNanos[row]) {
            longestNanos[row] = durationNanos;
            frameOf[row] = frame;
        }
        observed[row] = true;
    }

    public boolean observed(int row) { return observed[row]; }
    public long longestNanos(int row) { return longestNanos[row]; }
    /** The frame the row's longest analysis was observed on (0: none). */
    public long frameOf(int row) { return frameOf[row]; }
}
