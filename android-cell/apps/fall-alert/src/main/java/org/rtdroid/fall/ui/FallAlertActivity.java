package org.rtdroid.fall.ui;

import static org.rtdroid.android.app.LittleEndian.getF32;
import static org.rtdroid.android.app.LittleEndian.getI64;

import android.content.Intent;
import android.graphics.Color;
import android.util.Log;
import android.view.View;
import android.widget.LinearLayout;
import android.widget.TextView;
import java.text.SimpleDateFormat;
import java.util.Date;
import java.util.Locale;
import org.rtdroid.android.app.RtCellActivity;

/**
 * The fall detection app's Android side (dissertation 3.8.3.1, where a detected fall is sent to a
 * server): the RT cell's FallDetectionService publishes each fall on cross-context channel
 * {@code fall.alert}, the Android-side proxy broadcasts it, and this activity shows the alert with
 * the time it arrived and the impact's peak.
 *
 * <p>Plain Intents through the proxy, so the same code runs in the emulated Android cell and on a
 * real device. The UI is built in code (no resources, {@link RtCellActivity}) and every view the
 * tests read carries its id name as its tag.
 */
public class FallAlertActivity extends RtCellActivity {
    static final String TAG = "FallAlert";

    static final String ACTION_FALL = "org.rtdroid.fall.FALL";

    /** FALL payload (protocols.md): i64 impact_nanos, i64 falls, f32 peak_g, f32 free_fall_ms. */
    static final int FALL_BYTES = 24;

    private static final int CALM = Color.rgb(0x2e, 0x7d, 0x32);
    private static final int ALARM = Color.rgb(0xc6, 0x28, 0x28);

    private TextView alert;
    private Banner alertBanner;
    private TextView fallTime;
    private TextView peak;
    private TextView freeFall;
    private TextView falls;

    public FallAlertActivity() {
        super(TAG);
    }

    @Override
    protected String[] rtActions() {
        return new String[] {ACTION_FALL, ACTION_REFUSED};
    }

    @Override
    protected void onRtIntent(Intent intent) {
        if (ACTION_REFUSED.equals(intent.getAction())) {
            alert.setText("Refused: " + intent.getStringExtra("reason"));
            return;
        }
        byte[] p = intent.getByteArrayExtra("payload");
        if (p == null || p.length < FALL_BYTES) {
            Log.w(TAG, "fall record too short: " + (p == null ? 0 : p.length));
            return;
        }
        long count = getI64(p, 8);
        float peakG = getF32(p, 16);
        float freeFallMs = getF32(p, 20);
        String at = new SimpleDateFormat("HH:mm:ss", Locale.ROOT).format(new Date());
        alert.setText("FALL DETECTED");
        alertBanner.setColor(ALARM);
        fallTime.setText(at);
        peak.setText(String.format(Locale.ROOT, "%.1f g", peakG));
        freeFall.setText(String.format(Locale.ROOT, "%.0f ms", freeFallMs));
        falls.setText(Long.toString(count));
        Log.i(TAG, "fall " + count + " at " + at + ", peak " + peakG + " g, free fall " + freeFallMs + " ms");
    }

    // ---- layout ----------------------------------------------------------------------------

    @Override
    protected View buildUi() {
        LinearLayout page = new LinearLayout(this);
        page.setOrientation(LinearLayout.VERTICAL);
        page.setBackgroundColor(PAGE);
        page.addView(header("Fall Detection", "Accelerometer in the RT cell · RTDroid Android cell"));

        alertBanner = banner(page, CALM, 24, "Monitoring: no fall", "alert");
        alert = alertBanner.headline();

        LinearLayout details = card(page);
        fallTime = valueRow(details, "Last fall at", MUTED, "fall_time");
        peak = valueRow(details, "Impact peak", MUTED, "peak_g");
        freeFall = valueRow(details, "Free fall", MUTED, "free_fall");
        falls = valueRow(details, "Falls detected", MUTED, "falls");
        falls.setText("0");
        return page;
    }
}
