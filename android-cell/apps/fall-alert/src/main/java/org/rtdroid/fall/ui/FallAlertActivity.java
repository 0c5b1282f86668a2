package org.rtdroid.fall.ui;

import android.app.Activity;
import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;
import android.content.IntentFilter;
import android.graphics.Color;
import android.graphics.Typeface;
import android.graphics.drawable.GradientDrawable;
import android.os.Bundle;
import android.util.Log;
import android.util.TypedValue;
import android.view.Gravity;
import android.view.View;
import android.view.ViewGroup;
import android.view.Window;
import android.widget.LinearLayout;
import android.widget.TextView;
import java.text.SimpleDateFormat;
import java.util.Date;
import java.util.Locale;

/**
 * The fall detection app's Android side (dissertation 3.8.3.1, where a detected fall is sent to a
 * server): the RT cell's FallDetectionService publishes each fall on cross-context channel
 * {@code fall.alert}, the Android-side proxy broadcasts it, and this activity shows the alert with
 * the time it arrived and the impact's peak.
 *
 * <p>Plain Intents through the proxy, so the same code runs in the emulated Android cell and on a
 * real device. The UI is built in code (no resources) and every view the tests read carries its
 * id name as its tag.
 */
public class FallAlertActivity extends Activity {
    static final String TAG = "FallAlert";

    static final String ACTION_FALL = "org.rtdroid.fall.FALL";
    static final String ACTION_REFUSED = "org.rtdroid.proxy.REFUSED";

    /** FALL payload (protocols.md): i64 impact_nanos, i64 falls, f32 peak_g, f32 free_fall_ms. */
    static final int FALL_BYTES = 24;

    private static final int INK = Color.rgb(0x1d, 0x23, 0x33);
    private static final int MUTED = Color.rgb(0x5f, 0x6b, 0x7a);
    private static final int PAGE = Color.rgb(0xee, 0xf1, 0xf5);
    private static final int HEADER = Color.rgb(0x0f, 0x3d, 0x5c);
    private static final int CALM = Color.rgb(0x2e, 0x7d, 0x32);
    private static final int ALARM = Color.rgb(0xc6, 0x28, 0x28);

    private TextView alert;
    private GradientDrawable alertCard;
    private TextView fallTime;
    private TextView peak;
    private TextView freeFall;
    private TextView falls;

    private final BroadcastReceiver fromRt = new BroadcastReceiver() {
        @Override
        public void onReceive(Context context, Intent intent) {
            onRtIntent(intent);
        }
    };

    @Override
    protected void onCreate(Bundle savedInstanceState) {
        super.onCreate(savedInstanceState);
        requestWindowFeature(Window.FEATURE_NO_TITLE);
        setContentView(buildUi());
        Log.i(TAG, "FallAlert created");
    }

    @Override
    protected void onResume() {
        super.onResume();
        IntentFilter filter = new IntentFilter();
        filter.addAction(ACTION_FALL);
        filter.addAction(ACTION_REFUSED);
        registerReceiver(fromRt, filter);
    }

    @Override
    protected void onPause() {
        unregisterReceiver(fromRt);
        super.onPause();
    }

    void onRtIntent(Intent intent) {
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
        float peakG = Float.intBitsToFloat(getI32(p, 16));
        float freeFallMs = Float.intBitsToFloat(getI32(p, 20));
        String at = new SimpleDateFormat("HH:mm:ss", Locale.ROOT).format(new Date());
        alert.setText("FALL DETECTED");
        alertCard.setColor(ALARM);
        fallTime.setText(at);
        peak.setText(String.format(Locale.ROOT, "%.1f g", peakG));
        freeFall.setText(String.format(Locale.ROOT, "%.0f ms", freeFallMs));
        falls.setText(Long.toString(count));
        Log.i(TAG, "fall " + count + " at " + at + ", peak " + peakG + " g, free fall " + freeFallMs + " ms");
    }

    // ---- layout (in code: the bundle carries no resources) ---------------------------------

    private View buildUi() {
        LinearLayout page = new LinearLayout(this);
        page.setOrientation(LinearLayout.VERTICAL);
        page.setBackgroundColor(PAGE);

        LinearLayout header = new LinearLayout(this);
        header.setOrientation(LinearLayout.VERTICAL);
        header.setBackgroundColor(HEADER);
        header.setPadding(dp(20), dp(16), dp(20), dp(16));
        header.addView(text("Fall Detection", 22, Color.WHITE, true));
        header.addView(text("Accelerometer in the RT cell · RTDroid Android cell", 13,
                Color.rgb(0xb8, 0xd4, 0xe6), false));
        page.addView(header);

        LinearLayout card = new LinearLayout(this);
        card.setOrientation(LinearLayout.VERTICAL);
        card.setGravity(Gravity.CENTER_HORIZONTAL);
        alertCard = new GradientDrawable();
        alertCard.setColor(CALM);
        alertCard.setCornerRadius(dp(12));
        card.setBackground(alertCard);
        card.setPadding(dp(16), dp(24), dp(16), dp(24));
        alert = text("Monitoring: no fall", 24, Color.WHITE, true);
        alert.setTag("alert");
        alert.setGravity(Gravity.CENTER_HORIZONTAL);
        card.addView(alert);
        LinearLayout.LayoutParams lp = new LinearLayout.LayoutParams(
                ViewGroup.LayoutParams.MATCH_PARENT, ViewGroup.LayoutParams.WRAP_CONTENT);
        lp.setMargins(dp(12), dp(12), dp(12), 0);
        page.addView(card, lp);

        LinearLayout details = new LinearLayout(this);
        details.setOrientation(LinearLayout.VERTICAL);
        GradientDrawable bg = new GradientDrawable();
        bg.setColor(Color.WHITE);
        bg.setCornerRadius(dp(12));
        bg.setStroke(dp(1), Color.rgb(0xd9, 0xdf, 0xe7));
        details.setBackground(bg);
        details.setPadding(dp(16), dp(14), dp(16), dp(14));
        fallTime = row(details, "Last fall at", "fall_time");
        peak = row(details, "Impact peak", "peak_g");
        freeFall = row(details, "Free fall", "free_fall");
        falls = row(details, "Falls detected", "falls");
        falls.setText("0");
        page.addView(details, lp);
        return page;
    }

    private TextView row(LinearLayout card, String label, String tag) {
        LinearLayout r = new LinearLayout(this);
        r.setOrientation(LinearLayout.HORIZONTAL);
        r.setPadding(0, dp(4), 0, dp(4));
        r.addView(text(label, 15, MUTED, false),
                new LinearLayout.LayoutParams(0, ViewGroup.LayoutParams.WRAP_CONTENT, 1f));
        TextView value = text("–", 15, INK, true);
        value.setTag(tag);
        r.addView(value);
        card.addView(r);
        return value;
    }

    private TextView text(String s, int sp, int color, boolean bold) {
        TextView t = new TextView(this);
        t.setText(s);
        t.setTextSize(TypedValue.COMPLEX_UNIT_SP, sp);
        t.setTextColor(color);
        if (bold) {
            t.setTypeface(Typeface.DEFAULT_BOLD);
        }
        return t;
    }

    private int dp(int v) {
        return (int) (v * getResources().getDisplayMetrics().density + 0.5f);
    }

    // ---- little-endian payloads (bridge/docs/protocols.md) ---------------------------------

    static int getI32(byte[] b, int off) {
        return (b[off] & 0xff) | (b[off + 1] & 0xff) << 8 | (b[off + 2] & 0xff) << 16
                | (b[off + 3] & 0xff) << 24;
    }

    static long getI64(byte[] b, int off) {
        return (getI32(b, off) & 0xffffffffL) | ((long) getI32(b, off + 4)) << 32;
    }
}
