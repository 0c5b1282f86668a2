package org.rtdroid.autopilot.monitor;

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
import android.widget.Button;
import android.widget.LinearLayout;
import android.widget.TextView;
import java.util.Locale;

/**
 * The autopilot app's ground station (dissertation 3.8.3.2, jPapaBench): the RT cell's
 * AutopilotService publishes a POSITION record on cross-context channel
 * {@code autopilot.position} on every GPS fix (4 Hz), the Android-side proxy broadcasts it, and
 * this activity shows the mode, the target waypoint, the position east and north of home, the
 * altitude, course, speed and the distance to the target. Its buttons send SET_MODE on
 * {@code autopilot.control} (sticks centred, cruise throttle).
 *
 * <p>Plain Intents through the proxy, so the same code runs in the emulated Android cell and on a
 * real device. The UI is built in code (no resources) and every view the tests read carries its
 * id name as its tag.
 */
public class AutopilotMonitorActivity extends Activity {
    static final String TAG = "AutopilotMonitor";

    static final String PROXY_PACKAGE = "org.rtdroid.proxy";
    static final String PROXY_SERVICE = "org.rtdroid.android.proxy.RTsProxyService";
    static final String ACTION_SEND = "org.rtdroid.proxy.SEND";
    static final String ACTION_REFUSED = "org.rtdroid.proxy.REFUSED";
    static final String ACTION_POSITION = "org.rtdroid.autopilot.POSITION";
    static final String ACTION_SET_MODE = "org.rtdroid.autopilot.SET_MODE";
    static final String CONTROL_CHANNEL = "autopilot.control";
    /** Priority class of a mode change on the wire (0..99). */
    static final int SET_MODE_PRIORITY = 60;
    static final float CRUISE_THROTTLE = 0.5f;

    static final String[] MODES = {"MANUAL", "AUTO1", "AUTO2", "HOME"};

    /**
     * POSITION payload (protocols.md, 40 bytes): i64 fixes, i32 mode, i32 waypoint, f32 east,
     * f32 north, f32 altitude, f32 course, f32 speed, f32 distance.
     */
    static final int POSITION_BYTES = 40;

    private static final int INK = Color.rgb(0x1d, 0x23, 0x33);
    private static final int MUTED = Color.rgb(0x5f, 0x6b, 0x7a);
    private static final int PAGE = Color.rgb(0xee, 0xf1, 0xf5);
    private static final int HEADER = Color.rgb(0x0f, 0x3d, 0x5c);
    private static final int AUTO = Color.rgb(0x2e, 0x7d, 0x32);
    private static final int PILOT = Color.rgb(0xef, 0x6c, 0x00);

    private TextView mode;
    private GradientDrawable modeCard;
    private TextView waypoint;
    private TextView position;
    private TextView altitude;
    private TextView course;
    private TextView speed;
    private TextView distance;
    private TextView fixes;
    private long nextCorrelationId = 1;

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
        Log.i(TAG, "AutopilotMonitor created");
    }

    @Override
    protected void onResume() {
        super.onResume();
        IntentFilter filter = new IntentFilter();
        filter.addAction(ACTION_POSITION);
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
            mode.setText("Refused: " + intent.getStringExtra("reason"));
            return;
        }
        byte[] p = intent.getByteArrayExtra("payload");
        if (p == null || p.length < POSITION_BYTES) {
            Log.w(TAG, "position record too short: " + (p == null ? 0 : p.length));
            return;
        }
        long n = getI64(p, 0);
        int m = getI32(p, 8);
        int wp = getI32(p, 12);
        float east = getF32(p, 16);
        float north = getF32(p, 20);
        float alt = getF32(p, 24);
        float crs = getF32(p, 28);
        float spd = getF32(p, 32);
        float dist = getF32(p, 36);
        String name = m >= 0 && m < MODES.length ? MODES[m] : "mode " + m;
        mode.setText(name);
        modeCard.setColor(m >= 2 ? AUTO : PILOT);
        waypoint.setText(wp >= 0 ? "waypoint " + wp : m == 3 ? "home" : "–");
        position.setText(String.format(Locale.ROOT, "%.0f m E, %.0f m N", east, north));
        altitude.setText(String.format(Locale.ROOT, "%.1f m", alt));
        course.setText(String.format(Locale.ROOT, "%.0f°", crs));
        speed.setText(String.format(Locale.ROOT, "%.1f m/s", spd));
        distance.setText(m >= 2 ? String.format(Locale.ROOT, "%.0f m", dist) : "–");
        fixes.setText(Long.toString(n));
        if (n % 20 == 0) {
            Log.i(TAG, "fix " + n + ": " + name + " " + position.getText() + " alt " + alt + " m");
        }
    }

    void sendMode(int m) {
        byte[] payload = new byte[16];
        putI32(payload, 0, m);
        putI32(payload, 4, Float.floatToIntBits(0f));
        putI32(payload, 8, Float.floatToIntBits(0f));
        putI32(payload, 12, Float.floatToIntBits(CRUISE_THROTTLE));
        Intent intent = new Intent(ACTION_SEND);
        intent.setClassName(PROXY_PACKAGE, PROXY_SERVICE);
        intent.putExtra("channel", CONTROL_CHANNEL);
        intent.putExtra("action", ACTION_SET_MODE);
        intent.putExtra("payload", payload);
        intent.putExtra("priority", SET_MODE_PRIORITY);
        intent.putExtra("correlationId", nextCorrelationId++);
        intent.putExtra("sender", getPackageName());
        intent.putExtra("sendNanos", System.nanoTime());
        startService(intent);
        Log.i(TAG, "SET_MODE " + MODES[m] + " sent");
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
        header.addView(text("Autopilot", 22, Color.WHITE, true));
        header.addView(text("jPapaBench in the RT cell · RTDroid Android cell", 13,
                Color.rgb(0xb8, 0xd4, 0xe6), false));
        page.addView(header);

        LinearLayout card = new LinearLayout(this);
        card.setOrientation(LinearLayout.VERTICAL);
        card.setGravity(Gravity.CENTER_HORIZONTAL);
        modeCard = new GradientDrawable();
        modeCard.setColor(MUTED);
        modeCard.setCornerRadius(dp(12));
        card.setBackground(modeCard);
        card.setPadding(dp(16), dp(20), dp(16), dp(20));
        mode = text("Waiting for the autopilot", 24, Color.WHITE, true);
        mode.setTag("mode");
        mode.setGravity(Gravity.CENTER_HORIZONTAL);
        card.addView(mode);
        waypoint = text("–", 15, Color.WHITE, false);
        waypoint.setTag("waypoint");
        waypoint.setGravity(Gravity.CENTER_HORIZONTAL);
        card.addView(waypoint);
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
        position = row(details, "Position", "position");
        altitude = row(details, "Altitude", "altitude");
        course = row(details, "Course", "course");
        speed = row(details, "Ground speed", "speed");
        distance = row(details, "To target", "distance");
        fixes = row(details, "GPS fixes", "fixes");
        page.addView(details, lp);

        LinearLayout buttons = new LinearLayout(this);
        buttons.setOrientation(LinearLayout.HORIZONTAL);
        for (int i = 0; i < MODES.length; i++) {
            final int m = i;
            Button b = new Button(this);
            b.setText(MODES[i]);
            b.setTag("set_" + MODES[i].toLowerCase(Locale.ROOT));
            b.setOnClickListener(new View.OnClickListener() {
                @Override
                public void onClick(View v) {
                    sendMode(m);
                }
            });
            buttons.addView(b, new LinearLayout.LayoutParams(0, ViewGroup.LayoutParams.WRAP_CONTENT, 1f));
        }
        page.addView(buttons, lp);
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

    static float getF32(byte[] b, int off) {
        return Float.intBitsToFloat(getI32(b, off));
    }

    static void putI32(byte[] b, int off, int v) {
        b[off] = (byte) v;
        b[off + 1] = (byte) (v >>> 8);
        b[off + 2] = (byte) (v >>> 16);
        b[off + 3] = (byte) (v >>> 24);
    }
}
