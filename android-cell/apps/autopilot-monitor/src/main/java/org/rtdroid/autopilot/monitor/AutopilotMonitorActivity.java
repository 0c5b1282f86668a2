package org.rtdroid.autopilot.monitor;


import android.graphics.Color;
import android.util.Log;
import android.view.View;
import android.view.ViewGroup;
import android.widget.Button;
import android.widget.LinearLayout;
import android.widget.TextView;
import java.util.Locale;
import org.rtdroid.android.app.RtCellActivity;
import org.rtdroid.android.app.RtIntent;
import org.rtdroid.contract.autopilot.Autopilot;
import org.rtdroid.contract.autopilot.Autopilot.Position;
import org.rtdroid.contract.autopilot.Autopilot.SetMode;

/**
 * The autopilot app's ground station (dissertation 3.8.3.2, jPapaBench): the RT cell's
 * AutopilotService publishes a {@link Position} (the app's contract, bridge/contracts) on every GPS
 * fix (4 Hz), the Android-side proxy broadcasts it, and
 * this activity shows the mode, the target waypoint, the position east and north of home, the
 * altitude, course, speed and the distance to the target. Its buttons send a {@link SetMode}
 * (sticks centred, cruise throttle).
 *
 * <p>Plain Intents through the proxy, so the same code runs in the emulated Android cell and on a
 * real device. The UI is built in code (no resources, {@link RtCellActivity}) and every view the
 * tests read carries its id name as its tag.
 */
public class AutopilotMonitorActivity extends RtCellActivity {
    static final String TAG = "AutopilotMonitor";

    static final float CRUISE_THROTTLE = 0.5f;

    static final String[] MODES = {"MANUAL", "AUTO1", "AUTO2", "HOME"};

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
    private final Position record = new Position();
    private final SetMode request = new SetMode();

    public AutopilotMonitorActivity() {
        super(TAG);
    }

    @Override
    protected String[] rtActions() {
        return new String[] {Position.ACTION_POSITION, ACTION_REFUSED};
    }

    @Override
    protected void onRtIntent(RtIntent in) {
        if (showRefusal(in, mode) || !read(in, record, "a position")) {
            return;
        }
        long n = record.fixes();
        int m = record.mode();
        int wp = record.waypoint();
        float east = record.east();
        float north = record.north();
        float alt = record.altitude();
        float crs = record.course();
        float spd = record.speed();
        float dist = record.distance();
        String name = m >= 0 && m < MODES.length ? MODES[m] : "mode " + m;
        mode.setText(name);
        modeBanner.setColor(m >= Autopilot.MODE_AUTO2 ? AUTO : PILOT);
        waypoint.setText(wp >= 0 ? "waypoint " + wp : m == Autopilot.MODE_HOME ? "home" : "–");
        position.setText(String.format(Locale.ROOT, "%.0f m E, %.0f m N", east, north));
        altitude.setText(String.format(Locale.ROOT, "%.1f m", alt));
        course.setText(String.format(Locale.ROOT, "%.0f°", crs));
        speed.setText(String.format(Locale.ROOT, "%.1f m/s", spd));
        distance.setText(m >= Autopilot.MODE_AUTO2 ? String.format(Locale.ROOT, "%.0f m", dist) : "–");
        fixes.setText(Long.toString(n));
        if (n % 20 == 0) {
            Log.i(TAG, "fix " + n + ": " + name + " " + position.getText() + " alt " + alt + " m");
        }
    }

    void sendMode(int m) {
        send(request.mode(m).roll(0f).pitch(0f).throttle(CRUISE_THROTTLE), SetMode.ACTION_SET_MODE);
        Log.i(TAG, "SET_MODE " + MODES[m] + " sent");
    }

    // ---- layout ----------------------------------------------------------------------------

    @Override
    protected View buildUi() {
        LinearLayout page = page("Autopilot", "jPapaBench in the RT cell · RTDroid Android cell");

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
