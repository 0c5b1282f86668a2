package org.rtdroid.autopilot.monitor;

import static org.rtdroid.android.app.LittleEndian.getF32;
import static org.rtdroid.android.app.LittleEndian.getI32;
import static org.rtdroid.android.app.LittleEndian.getI64;
import static org.rtdroid.android.app.LittleEndian.putI32;

import android.content.Intent;
import android.graphics.Color;
import android.util.Log;
import android.view.View;
import android.view.ViewGroup;
import android.widget.Button;
import android.widget.LinearLayout;
import android.widget.TextView;
import java.util.Locale;
import org.rtdroid.android.app.RtCellActivity;

/**
 * The autopilot app's ground station (dissertation 3.8.3.2, jPapaBench): the RT cell's
 * AutopilotService publishes a POSITION record on cross-context channel
 * {@code autopilot.position} on every GPS fix (4 Hz), the Android-side proxy broadcasts it, and
 * this activity shows the mode, the target waypoint, the position east and north of home, the
 * altitude, course, speed and the distance to the target. Its buttons send SET_MODE on
 * {@code autopilot.control} (sticks centred, cruise throttle).
 *
 * <p>Plain Intents through the proxy, so the same code runs in the emulated Android cell and on a
 * real device. The UI is built in code (no resources, {@link RtCellActivity}) and every view the
 * tests read carries its id name as its tag.
 */
public class AutopilotMonitorActivity extends RtCellActivity {
    static final String TAG = "AutopilotMonitor";

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

    private static final int AUTO = Color.rgb(0x2e, 0x7d, 0x32);
    private static final int PILOT = Color.rgb(0xef, 0x6c, 0x00);

    private TextView mode;
    private Banner modeBanner;
    private TextView waypoint;
    private TextView position;
    private TextView altitude;
    private TextView course;
    private TextView speed;
    private TextView distance;
    private TextView fixes;
    private long nextCorrelationId = 1;

    public AutopilotMonitorActivity() {
        super(TAG);
    }

    @Override
    protected String[] rtActions() {
        return new String[] {ACTION_POSITION, ACTION_REFUSED};
    }

    @Override
    protected void onRtIntent(Intent intent) {
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
        modeBanner.setColor(m >= 2 ? AUTO : PILOT);
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
        sendToRt(CONTROL_CHANNEL, ACTION_SET_MODE, payload, SET_MODE_PRIORITY, nextCorrelationId++,
                System.nanoTime());
        Log.i(TAG, "SET_MODE " + MODES[m] + " sent");
    }

    // ---- layout ----------------------------------------------------------------------------

    @Override
    protected View buildUi() {
        LinearLayout page = new LinearLayout(this);
        page.setOrientation(LinearLayout.VERTICAL);
        page.setBackgroundColor(PAGE);
        page.addView(header("Autopilot", "jPapaBench in the RT cell · RTDroid Android cell"));

        modeBanner = banner(page, MUTED, 20, "Waiting for the autopilot", "mode");
        mode = modeBanner.headline();
        waypoint = modeBanner.line("–", "waypoint");

        LinearLayout details = card(page);
        position = valueRow(details, "Position", MUTED, "position");
        altitude = valueRow(details, "Altitude", MUTED, "altitude");
        course = valueRow(details, "Course", MUTED, "course");
        speed = valueRow(details, "Ground speed", MUTED, "speed");
        distance = valueRow(details, "To target", MUTED, "distance");
        fixes = valueRow(details, "GPS fixes", MUTED, "fixes");

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
        page.addView(buttons, cardMargins());
        return page;
    }
}
