package org.rtdroid.spark.monitor;

import android.content.Context;
import android.graphics.Bitmap;
import android.graphics.Canvas;
import android.graphics.Color;
import android.graphics.Paint;
import android.graphics.Rect;
import android.view.View;
import org.rtdroid.video.SparkScene;

/**
 * Frame n of the video as the RT cell analysed it, with the box the RT cell found drawn on it, and
 * under it a strip of the last {@link #STRIP} frames' timing, planned against actual: per frame
 * (oldest left), above the line the analysis's actual length against the time its plan gave it
 * (full height: all of it), below the line the display's start error, actual − planned
 * (±{@link #ERROR_SCALE_US} µs full scale; green on time, red when the analysis delayed it).
 * A frame with a box stays on screen for {@link #HOLD_MILLIS} ms (an operator's alarm hold), the
 * strip and the texts go on with every frame.
 */
final class FrameView extends View {
    static final int STRIP = 25;
    static final int ERROR_SCALE_US = 200;
    static final long HOLD_MILLIS = 2_000;
    /** Frame n rendered from the same deterministic video the RT cell reads (4:2:0 -> ARGB). */
    private final byte[] yuv = new byte[SparkScene.frameBytes()];
    private final int[] argb = new int[SparkScene.WIDTH * SparkScene.HEIGHT];
    private final Bitmap bitmap = Bitmap.createBitmap(SparkScene.WIDTH, SparkScene.HEIGHT, Bitmap.Config.ARGB_8888);
    private final Paint boxPaint = new Paint();
    private final Paint fill = new Paint();
    private final Paint label = new Paint();
    private final Rect src = new Rect(0, 0, SparkScene.WIDTH, SparkScene.HEIGHT);
    private final Rect dst = new Rect();
    private final Result[] strip = new Result[STRIP];
    private int stripCount;
    private Result shown;
    private long holdUntil;

    FrameView(Context context) {
        super(context);
        boxPaint.setColor(Color.rgb(0xff, 0x17, 0x44));
        boxPaint.setStyle(Paint.Style.STROKE);
        boxPaint.setStrokeWidth(3);
        label.setColor(Color.rgb(0x90, 0x9a, 0xa8));
        label.setTextSize(dp(context, 10));
        label.setAntiAlias(true);
    }

    private static int dp(Context c, int v) {
        return Math.round(v * c.getResources().getDisplayMetrics().density);
    }

    /** @return whether the frame is shown (a detection held on screen keeps the others off it) */
    boolean show(Result r) {
        strip[stripCount % STRIP] = r;
        stripCount++;
        long now = android.os.SystemClock.uptimeMillis();
        if (!r.hasBox() && now < holdUntil) {
            invalidate();
            return false;
        }
        holdUntil = r.hasBox() ? now + HOLD_MILLIS : 0;
        shown = r;
        SparkScene.render((int) (r.frame % SparkScene.FRAMES), yuv, 0);
        toArgb();
        bitmap.setPixels(argb, 0, SparkScene.WIDTH, 0, 0, SparkScene.WIDTH, SparkScene.HEIGHT);
        invalidate();
        return true;
    }

    /** BT.601 limited range to ARGB, chroma upsampled by repetition (as the RT cell's parse action). */
    private void toArgb() {
        int w = SparkScene.WIDTH;
        int h = SparkScene.HEIGHT;
        int cb0 = w * h;
        int cr0 = cb0 + (w / 2) * (h / 2);
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int c = 298 * ((yuv[y * w + x] & 0xff) - 16);
                int ci = (y / 2) * (w / 2) + x / 2;
                int d = (yuv[cb0 + ci] & 0xff) - 128;
                int e = (yuv[cr0 + ci] & 0xff) - 128;
                int r = clamp((c + 409 * e + 128) >> 8);
                int g = clamp((c - 100 * d - 208 * e + 128) >> 8);
                int b = clamp((c + 516 * d + 128) >> 8);
                argb[y * w + x] = 0xff000000 | (r << 16) | (g << 8) | b;
            }
        }
    }

    private static int clamp(int v) {
        return v < 0 ? 0 : Math.min(v, 255);
    }

    private int stripHeight() {
        return dp(getContext(), 96);
    }

    @Override
    protected void onMeasure(int widthSpec, int heightSpec) {
        int width = MeasureSpec.getSize(widthSpec);
        setMeasuredDimension(width, width * SparkScene.HEIGHT / SparkScene.WIDTH + dp(getContext(), 8) + stripHeight());
    }

    @Override
    protected void onDraw(Canvas canvas) {
        int width = getWidth();
        int imageHeight = width * SparkScene.HEIGHT / SparkScene.WIDTH;
        int stripTop = imageHeight + dp(getContext(), 8);
        int stripHeight = stripHeight();
        canvas.drawColor(Color.rgb(0x10, 0x14, 0x1c));
        dst.set(0, 0, width, imageHeight);
        canvas.drawBitmap(bitmap, src, dst, null);
        Result r = shown;
        if (r != null && r.hasBox()) {
            float sx = (float) width / SparkScene.WIDTH;
            float sy = (float) imageHeight / SparkScene.HEIGHT;
            canvas.drawRect(r.x0 * sx - 3, r.y0 * sy - 3, (r.x1 + 1) * sx + 3, (r.y1 + 1) * sy + 3, boxPaint);
        }
        drawStrip(canvas, stripTop, width, stripHeight);
    }

    /** The strip: the analysis's use of its time above the line, the display's start error below it. */
    private void drawStrip(Canvas canvas, int top, int width, int height) {
        int zero = top + height / 2;
        fill.setColor(Color.rgb(0x90, 0x9a, 0xa8));
        canvas.drawRect(0, zero, width, zero + 1, fill);
        float text = label.getTextSize();
        canvas.drawText("analysis / time planned for it", 4, top + text, label);
        canvas.drawText("display: actual − planned, ±" + ERROR_SCALE_US + " µs", 4, top + height - 4, label);
        int n = Math.min(stripCount, STRIP);
        float column = (float) width / STRIP;
        float half = height / 2f - 2;
        for (int i = 0; i < n; i++) {
            Result r = strip[(stripCount - n + i) % STRIP];
            float left = i * column + 1;
            float right = (i + 1) * column - 1;
            if (r.analysed() && r.availableMicros > 0) {
                float used = Math.min(1f, (float) (r.analyseEndMicros - r.analyseBeginMicros) / r.availableMicros);
                fill.setColor(Color.rgb(0x42, 0x8b, 0xf5));
                canvas.drawRect(left, zero - Math.max(1f, used * half), right, zero, fill);
            }
            float error = Math.max(-ERROR_SCALE_US, Math.min(ERROR_SCALE_US, r.displayErrorMicros())) * half / ERROR_SCALE_US;
            fill.setColor(r.clobbered() ? Color.rgb(0xe5, 0x39, 0x35) : Color.rgb(0x43, 0xa0, 0x47));
            canvas.drawRect(left, zero + 1 + Math.min(0, error), right, zero + 2 + Math.max(0, error), fill);
        }
    }
}
