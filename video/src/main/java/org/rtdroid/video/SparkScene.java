package org.rtdroid.video;

/**
 * The spark detection test video (seed 004, section 5): an industrial scene, dark but not black
 * (a pipe, a tank, gauges, a textured floor, all of luma below {@link #MAX_BACKGROUND_LUMA}), with
 * sparks and lightning at known frames and positions ({@link #EVENTS}). Deterministic: frame
 * {@code n} is the same bytes every time, on every JVM, so the RT cell analyses and the Android
 * cell shows the same picture. Frames are 4:2:0, BT.601 limited range (luma 16..235), as a
 * YUV4MPEG2 stream carries them ({@link Y4mWriter}).
 */
public final class SparkScene {
    public static final int WIDTH = 320;
    public static final int HEIGHT = 240;
    /** Frames of one pass of the video; it loops. */
    public static final int FRAMES = 100;
    public static final int FPS = 25;
    /** No pixel of the background has a luma above this (the analysis's threshold is above it). */
    public static final int MAX_BACKGROUND_LUMA = 160;
    /** The luma of a spark's core and of a lightning bolt. */
    public static final int EVENT_LUMA = 235;

    /** A spark or a lightning bolt, drawn inside its rectangle on frames {@code first..last}. */
    public static final class Event {
        public final String kind;
        public final int first;
        public final int last;
        public final int x;
        public final int y;
        public final int width;
        public final int height;

        Event(String kind, int first, int last, int x, int y, int width, int height) {
            this.kind = kind;
            this.first = first;
            this.last = last;
            this.x = x;
            this.y = y;
            this.width = width;
            this.height = height;
        }

        public boolean on(int frame) {
            int f = Math.floorMod(frame, FRAMES);
            return f >= first && f <= last;
        }
    }

    /** Every event of the video; no other frame has a pixel above {@link #MAX_BACKGROUND_LUMA}. */
    public static final Event[] EVENTS = {
        new Event("spark", 8, 9, 60, 50, 12, 12),
        new Event("spark", 20, 20, 250, 170, 10, 10),
        new Event("lightning", 33, 35, 140, 8, 40, 120),
        new Event("spark", 47, 48, 200, 60, 14, 14),
        new Event("spark", 60, 60, 30, 190, 10, 10),
        new Event("lightning", 71, 72, 230, 30, 50, 140),
        new Event("spark", 84, 86, 120, 150, 12, 12),
    };

    private SparkScene() {}

    /** The event on frame {@code frame} (of the looping video), or null. */
    public static Event eventOn(int frame) {
        for (Event e : EVENTS) {
            if (e.on(frame)) {
                return e;
            }
        }
        return null;
    }

    /** Bytes of one 4:2:0 frame: the luma plane and two quarter-size chroma planes. */
    public static int frameBytes() {
        return WIDTH * HEIGHT + 2 * (WIDTH / 2) * (HEIGHT / 2);
    }

    /**
     * Renders frame {@code frame} (looping) into {@code out} as planar 4:2:0 (Y, then Cb, then Cr),
     * {@link #frameBytes()} bytes from {@code offset}. Allocates nothing.
     */
    public static void render(int frame, byte[] out, int offset) {
        int f = Math.floorMod(frame, FRAMES);
        int cbAt = offset + WIDTH * HEIGHT;
        int crAt = cbAt + (WIDTH / 2) * (HEIGHT / 2);
        for (int y = 0; y < HEIGHT; y++) {
            for (int x = 0; x < WIDTH; x++) {
                out[offset + y * WIDTH + x] = (byte) backgroundLuma(f, x, y);
            }
        }
        for (int y = 0; y < HEIGHT / 2; y++) {
            for (int x = 0; x < WIDTH / 2; x++) {
                boolean tank = inTank(2 * x, 2 * y);
                out[cbAt + y * (WIDTH / 2) + x] = (byte) (tank ? 112 : 134);
                out[crAt + y * (WIDTH / 2) + x] = (byte) (tank ? 140 : 124);
            }
        }
        Event e = eventOn(f);
        if (e != null) {
            if (e.kind.equals("spark")) {
                drawSpark(e, f, out, offset, cbAt, crAt);
            } else {
                drawLightning(e, f, out, offset, cbAt, crAt);
            }
        }
    }

    private static boolean inTank(int x, int y) {
        return x >= 20 && x < 110 && y >= 90 && y < 200;
    }

    /** The scene without events: a gradient, a pipe, a tank with a highlight, two gauges, a floor texture. */
    private static int backgroundLuma(int f, int x, int y) {
        int v = 28 + 30 * y / HEIGHT;
        if (y >= 110 && y < 122) {
            v = 70 + (y == 112 ? 25 : 0);                      // the pipe and its highlight
        }
        if (inTank(x, y)) {
            v = 55 + (x >= 38 && x < 44 ? 40 : 0);             // the tank and its highlight
        }
        int gx = x - 160;
        int gy = y - 60;
        if (gx * gx + gy * gy < 15 * 15 || (x - 200) * (x - 200) + gy * gy < 10 * 10) {
            v = 110;                                           // gauges
        }
        if (y >= 210) {
            v += ((x / 8 + y / 8) & 1) * 12;                   // floor plates
        }
        return v + noise(f, x, y);
    }

    /** Sensor noise, -6..+6, a hash of frame and position (the same on every JVM). */
    private static int noise(int f, int x, int y) {
        int h = f * 73_856_093 ^ x * 19_349_663 ^ y * 83_492_791;
        h ^= h >>> 13;
        h *= 0x5bd1e995;
        h ^= h >>> 15;
        return (h & 0xff) % 13 - 6;
    }

    /** A bright core at the rectangle's centre and rays to its edge, yellow-white. */
    private static void drawSpark(Event e, int f, byte[] out, int offset, int cbAt, int crAt) {
        int cx = e.x + e.width / 2;
        int cy = e.y + e.height / 2;
        int r = Math.max(2, Math.min(e.width, e.height) / 4);
        for (int y = e.y; y < e.y + e.height; y++) {
            for (int x = e.x; x < e.x + e.width; x++) {
                int dx = x - cx;
                int dy = y - cy;
                boolean core = dx * dx + dy * dy <= r * r;
                // Four rays whose angle turns with the frame: along a diagonal or an axis.
                boolean ray = (f & 1) == 0 ? (dx == dy || dx == -dy) : (dx == 0 || dy == 0);
                if (core || ray) {
                    plot(out, offset, cbAt, crAt, x, y, core ? EVENT_LUMA : 215, 96, 150);
                }
            }
        }
    }

    /** A jagged bolt from the top of the rectangle to its bottom, 2 px wide, blue-white. */
    private static void drawLightning(Event e, int f, byte[] out, int offset, int cbAt, int crAt) {
        int x = e.x + e.width / 2;
        int seed = f * 31 + e.x;
        for (int y = e.y; y < e.y + e.height; y++) {
            seed = seed * 1_103_515_245 + 12_345;
            int step = ((seed >>> 16) & 3) - 1;                // -1, 0, +1, +2 then clamped
            x = Math.max(e.x, Math.min(e.x + e.width - 2, x + Math.min(step, 1)));
            plot(out, offset, cbAt, crAt, x, y, EVENT_LUMA, 150, 118);
            plot(out, offset, cbAt, crAt, x + 1, y, EVENT_LUMA, 150, 118);
        }
    }

    private static void plot(byte[] out, int offset, int cbAt, int crAt, int x, int y, int luma, int cb, int cr) {
        if (x < 0 || y < 0 || x >= WIDTH || y >= HEIGHT) {
            return;
        }
        out[offset + y * WIDTH + x] = (byte) luma;
        int c = (y / 2) * (WIDTH / 2) + x / 2;
        out[cbAt + c] = (byte) cb;
        out[crAt + c] = (byte) cr;
    }
}
