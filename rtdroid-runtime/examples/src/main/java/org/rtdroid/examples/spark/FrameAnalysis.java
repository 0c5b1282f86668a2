package org.rtdroid.examples.spark;

/**
 * The seed's time-adaptive image analysis (section 5.1): scan an RGB frame every {@code dx}
 * pixels horizontally and {@code dy} vertically for pixels whose luma exceeds a threshold, and
 * bound them with a rectangle. The work scales with 1 / (dx × dy). Allocation-free.
 */
public final class FrameAnalysis {
    /** Luma (BT.601, 16..235) a spark or lightning pixel exceeds; the scene's background stays below 160. */
    public static final int THRESHOLD = 180;

    private FrameAnalysis() {}

    /**
     * Scans {@code rgb} (packed 0xRRGGBB, {@code width} × {@code height}) at steps dx, dy into
     * {@code box} = x0, y0, x1, y1 (inclusive), or -1s when no pixel exceeds the threshold.
     *
     * @return the number of pixels above the threshold among those scanned
     */
    public static int scan(int[] rgb, int width, int height, int dx, int dy, int[] box) {
        int x0 = Integer.MAX_VALUE;
        int y0 = Integer.MAX_VALUE;
        int x1 = -1;
        int y1 = -1;
        int hits = 0;
        for (int y = 0; y < height; y += dy) {
            int row = y * width;
            for (int x = 0; x < width; x += dx) {
                int p = rgb[row + x];
                int luma = ((66 * ((p >> 16) & 0xff) + 129 * ((p >> 8) & 0xff) + 25 * (p & 0xff) + 128) >> 8) + 16;
                if (luma > THRESHOLD) {
                    hits++;
                    if (x < x0) {
                        x0 = x;
                    }
                    if (x > x1) {
                        x1 = x;
                    }
                    if (y < y0) {
                        y0 = y;
                    }
                    y1 = y;  // rows are scanned in order
                }
            }
        }
        if (hits == 0) {
            box[0] = box[1] = box[2] = box[3] = -1;
        } else {
            box[0] = x0;
            box[1] = y0;
            box[2] = x1;
            box[3] = y1;
        }
        return hits;
    }
}
