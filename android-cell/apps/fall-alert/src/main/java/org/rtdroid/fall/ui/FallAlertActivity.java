package org.rtdroid.fall.ui;


import android.graphics.Color;
import android.util.Log;
import android.view.View;
import android.widget.LinearLayout;
import android.widget.TextView;
import java.text.SimpleDateFormat;
import java.util.Date;
import java.util.Locale;
import org.rtdroid.android.app.RtCellActivity;
import org.rtdroid.android.app.RtIntent;
import org.rtdroid.contract.fall.Fall;

/**
 * The fall detection app's Android side (dissertation 3.8.3.1, where a detected fall is sent to a
 * server): the RT cell's FallDetectionService publishes each fall on cross-context channel
 * {@code fall.alert} (a {@link Fall.Alert}, the app's contract in bridge/contracts), the Android-side
 * proxy broadcasts it, and this activity shows the alert with the time it arrived and the impact's peak.
 *
 * <p>Plain Intents through the proxy, so the same code runs in the emulated Android cell and on a
 * real device. The UI is built in code (no resources, {@link RtCellActivity}) and every view the
 * tests read carries its id name as its tag.
 */
public class FallAlertActivity extends RtCellActivity {
    static final String TAG = "FallAlert";


    private static final int CALM = Color.rgb(0x2e, 0x7d, 0x32);
    private static final int ALARM = Color.rgb(0xc6, 0x28, 0x28);

    private TextView alert;
    private Banner alertBanner;
    private TextView fallTime;
    private TextView peak;
    private TextView freeFall;
    private TextView falls;
    private final Fall.Alert fall = new Fall.Alert();

    public FallAlertActivity() {
        super(TAG);
    }

    @Override
    protected String[] rtActions() {
        return new String[] {Fall.Alert.ACTION_FALL, ACTION_REFUSED};
    }

    @Override
    protected void onRtIntent(RtIntent in) {
        if (showRefusal(in, alert) || !read(in, fall, "a fall alert")) {
            return;
        }
        long count = fall.falls();
        float peakG = fall.peakG();
        float freeFallMs = fall.freeFallMs();
        String at = new SimpleDateFormat("HH:mm:ss", Locale.ROOT).format(new Date());
        alert.setText("FALL DETECTED");
        alertBanner.setColor(ALARM);
        fallTime.setText(at);
        peak.setText(String.format(Locale.ROOT, "%.1f g", peakG));
        freeFall.setText(String.format(Locale.ROOT, "%.0f ms", freeFallMs));
        falls.setText(Long.toString(count));
        Log.i(TAG, "fall " + count + " at " + at + " from " + in.peer() + ", peak " + peakG + " g, free fall " + freeFallMs + " ms");
    }

    // ---- layout ----------------------------------------------------------------------------

    @Override
    protected View buildUi() {
        LinearLayout page = page("Fall Detection", "Accelerometer in the RT cell · RTDroid Android cell");

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
