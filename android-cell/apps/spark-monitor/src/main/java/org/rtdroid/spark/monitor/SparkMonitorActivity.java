package org.rtdroid.spark.monitor;

import android.graphics.Color;
import android.util.Log;
import android.view.View;
import android.widget.LinearLayout;
import android.widget.TextView;
import java.util.Locale;
import org.rtdroid.android.app.RtCellActivity;
import org.rtdroid.android.app.RtIntent;
import org.rtdroid.contract.spark.Spark;

/**
 * The spark detection app's Android side (seed 004, section 5, where the detection is reported to
 * an operator): the RT cell's reflective SparkDetectionService publishes each displayed frame's
 * result on cross-context channel {@code spark.result}; the Android-side proxy broadcasts it and
 * this activity shows that frame with its box, the quality the analysis ran at, and a strip of the
 * recent timeline, planned against actual. The frame itself is rendered here from the same
 * deterministic test video (the {@code video} library): only results cross the region.
 *
 * <p>Views the tests read carry their id as their tag: {@code result} (the latest frame),
 * {@code detection} (the latest frame with a box, held on screen for 2 s), {@code quality},
 * {@code display}, {@code frames} (counts) and {@code history} (the last
 * {@link #HISTORY} frames, one per line: {@code "37 120,80,131,92"}, {@code "38 -"}: no box,
 * {@code "39 ?"}: not analysed).
 */
public class SparkMonitorActivity extends RtCellActivity {
    static final String TAG = "SparkMonitor";
    static final int HISTORY = 12;

    private FrameView frameView;
    private TextView result;
    private TextView detection;
    private TextView quality;
    private TextView display;
    private TextView frames;
    private TextView history;
    private final String[] lines = new String[HISTORY];
    private long received;
    private long withBox;
    private long malformed;
    private final Spark.FrameResult message = new Spark.FrameResult();

    public SparkMonitorActivity() {
        super(TAG);
    }

    @Override
    protected String[] rtActions() {
        return new String[] {Spark.FrameResult.ACTION_RESULT, ACTION_REFUSED};
    }

    @Override
    protected void onRtIntent(RtIntent in) {
        if (showRefusal(in, result)) {
            return;
        }
        Result r = in.read(message) ? Result.of(message) : null;
        if (r == null) {
            malformed++;
            Log.w(TAG, "not a frame result from " + in.peer() + " (" + malformed + " so far)");
            return;
        }
        received++;
        if (r.hasBox()) {
            withBox++;
        }
        frameView.show(r);
        if (r.hasBox()) {
            detection.setText("frame " + r.frame + ": box " + r.x0 + "," + r.y0 + " - " + r.x1 + "," + r.y1);
        }
        result.setText("frame " + r.frame + ": " + (!r.analysed() ? "not analysed"
                : r.hasBox() ? "box " + r.x0 + "," + r.y0 + " - " + r.x1 + "," + r.y1 : "no box"));
        quality.setText(r.analysed()
                ? String.format(Locale.ROOT, "%dx%d (1/%d), %.1f ms were left", r.dx, r.dy, r.dx * r.dy, r.availableMicros / 1000.0)
                : String.format(Locale.ROOT, "none: %.1f ms were left", r.availableMicros / 1000.0));
        display.setText(String.format(Locale.ROOT, "%+d us %s%s", r.displayErrorMicros(),
                r.clobbered() ? "(clobbered)" : "from plan", r.calibrated() ? ", calibrated" : ""));
        frames.setText(received + " shown, " + withBox + " with a box");
        System.arraycopy(lines, 1, lines, 0, HISTORY - 1);
        lines[HISTORY - 1] = r.line();
        StringBuilder h = new StringBuilder();
        for (String l : lines) {
            if (l != null) {
                h.append(h.length() == 0 ? "" : "\n").append(l);
            }
        }
        history.setText(h.toString());
    }

    // ---- layout ----------------------------------------------------------------------------

    @Override
    protected View buildUi() {
        LinearLayout page = page("Spark Detection", "Video analysed in the RT cell · temporal reflection");

        frameView = new FrameView(this);
        frameView.setTag("frame");
        page.addView(frameView, cardMargins());

        LinearLayout details = card(page);
        result = valueRow(details, "Latest", MUTED, "result");
        result.setText("waiting for the RT cell");
        detection = valueRow(details, "Last spark", MUTED, "detection");
        detection.setText("none yet");
        quality = valueRow(details, "Analysis", MUTED, "quality");
        display = valueRow(details, "Display", MUTED, "display");
        frames = valueRow(details, "Frames", MUTED, "frames");
        frames.setText("0 shown");
        history = text("", 11, Color.rgb(0x5f, 0x6b, 0x7a), false);
        history.setTag("history");
        history.setVisibility(View.GONE);  // for the tests: the last frames, not for the operator
        details.addView(history);
        return page;
    }
}
