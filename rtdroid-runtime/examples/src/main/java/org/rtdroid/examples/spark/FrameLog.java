package org.rtdroid.examples.spark;

/**
 * What the strategist saw of each displayed frame, and the engine's own time on each action, kept
 * in fixed rings for the benchmark and the tests (the past timeline holds the actions; this holds
 * the frame's story: the quality chosen, the time it had, the display's start error). Written only
 * by the engine's thread, allocation-free; read it once the engine has stopped, or entries well
 * behind {@link #frames()}.
 */
public final class FrameLog {
    private final int capacity;
    private final long[] frame;
    private final int[] row;
    private final long[] availableNanos;
    private final long[] analysisNanos;
    private final long[] plannedDisplay;
    private final long[] actualDisplay;
    private final boolean[] clobbered;
    private final boolean[] calibrated;
    private final boolean[] rowKnown;
    private final boolean[] box;
    private final long[] anticipation;
    private final long[] overheads;
    private volatile long frames;
    private volatile long actions;

    public FrameLog(int capacity) {
        this.capacity = capacity;
        frame = new long[capacity];
        row = new int[capacity];
        availableNanos = new long[capacity];
        analysisNanos = new long[capacity];
        plannedDisplay = new long[capacity];
        actualDisplay = new long[capacity];
        clobbered = new boolean[capacity];
        calibrated = new boolean[capacity];
        rowKnown = new boolean[capacity];
        box = new boolean[capacity];
        anticipation = new long[capacity];
        overheads = new long[capacity * 4];
    }

    void frame(long n, int quality, boolean known, long available, long analysis, long planned, long actual,
               boolean wasClobbered, boolean wasCalibrated, boolean found, long anticipationNanos) {
        int i = (int) (frames % capacity);
        frame[i] = n;
        row[i] = quality;
        rowKnown[i] = known;
        availableNanos[i] = available;
        analysisNanos[i] = analysis;
        plannedDisplay[i] = planned;
        actualDisplay[i] = actual;
        clobbered[i] = wasClobbered;
        calibrated[i] = wasCalibrated;
        box[i] = found;
        anticipation[i] = anticipationNanos;
        frames = frames + 1;
    }

    void overhead(long nanos) {
        overheads[(int) (actions % overheads.length)] = nanos;
        actions = actions + 1;
    }

    public int capacity() { return capacity; }
    /** Frames displayed so far. */
    public long frames() { return frames; }
    /** Actions run so far. */
    public long actions() { return actions; }

    private int at(long k) {
        if (k < 0 || k >= frames || k < frames - capacity) {
            throw new IndexOutOfBoundsException("frame " + k + " not held (" + frames + " logged, capacity " + capacity + ")");
        }
        return (int) (k % capacity);
    }

    public long frame(long k) { return frame[at(k)]; }
    /** The adaptation table's row the analysis ran at, or {@link AdaptationTable#NONE}. */
    public int row(long k) { return row[at(k)]; }
    /** Whether that row had been observed before (the table knew its cost when it was chosen). */
    public boolean rowKnown(long k) { return rowKnown[at(k)]; }
    public long availableNanos(long k) { return availableNanos[at(k)]; }
    public long analysisNanos(long k) { return analysisNanos[at(k)]; }
    public long plannedDisplayNanos(long k) { return plannedDisplay[at(k)]; }
    public long actualDisplayNanos(long k) { return actualDisplay[at(k)]; }
    /** Display start error: actual − planned. */
    public long displayErrorNanos(long k) { return actualDisplay[at(k)] - plannedDisplay[at(k)]; }
    public boolean clobbered(long k) { return clobbered[at(k)]; }
    public boolean calibrated(long k) { return calibrated[at(k)]; }
    public boolean box(long k) { return box[at(k)]; }
    public long anticipationNanos(long k) { return anticipation[at(k)]; }

    /** The engine's own time on action {@code k} (of the last {@code 4 × capacity}). */
    public long overheadNanos(long k) {
        if (k < 0 || k >= actions || k < actions - overheads.length) {
            throw new IndexOutOfBoundsException("action " + k + " not held");
        }
        return overheads[(int) (k % overheads.length)];
    }

    /** How many of the last actions {@link #overheadNanos} holds. */
    public long overheadsHeld() { return Math.min(actions, overheads.length); }
}
