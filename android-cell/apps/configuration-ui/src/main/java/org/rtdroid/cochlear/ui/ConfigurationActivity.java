package org.rtdroid.cochlear.ui;

import android.graphics.Color;
import android.graphics.drawable.GradientDrawable;
import android.util.Log;
import android.util.TypedValue;
import android.view.Gravity;
import android.view.View;
import android.view.ViewGroup;
import android.widget.Button;
import android.widget.CompoundButton;
import android.widget.LinearLayout;
import android.widget.ScrollView;
import android.widget.SeekBar;
import android.widget.Switch;
import android.widget.TextView;
import java.nio.charset.StandardCharsets;
import org.rtdroid.android.app.RtCellActivity;
import org.rtdroid.android.app.RtIntent;
import org.rtdroid.contract.cochlear.Cochlear.SetConfig;
import org.rtdroid.contract.cochlear.Cochlear.Status;
import org.rtdroid.contract.echo.Echo.Ping;

/**
 * The cochlear implant's ConfigurationUI (RTDroid dissertation, chapter on the cochlear implant):
 * a volume SeekBar and a noise-reduction Switch sent to the RT cell as a {@link SetConfig}, live
 * {@link Status} back, and a {@link Ping} over echo (the apps' contracts, bridge/contracts).
 *
 * <p>Everything goes through the Android-side proxy (RTsProxyService) with plain Intents, so the
 * same code runs in the emulated Android cell and on a real device. The UI is built in code (no
 * resources, {@link RtCellActivity}) and every view the tests drive carries its id name as its tag.
 */
public class ConfigurationActivity extends RtCellActivity {
    static final String TAG = "ConfigurationUI";

    /** What a ping carries besides its number: recognisable in a dump. */
    static final byte[] PING_MARK = "RTDR".getBytes(StandardCharsets.US_ASCII);

    private static final int ACCENT = Color.rgb(0x00, 0x7a, 0x87);
    private static final int WARN = Color.rgb(0xc6, 0x28, 0x28);
    private static final int CONNECTED = Color.rgb(0x8c, 0xe9, 0xb0);

    private SeekBar volume;
    private TextView volumeValue;
    private Switch noiseReduction;
    private TextView connection;
    private TextView pingResult;
    private TextView roundTrip;
    private TextView releases;
    private TextView deadlineMisses;
    private TextView worstLateness;
    private TextView levels;
    private TextView applied;
    /** The settings the RT cell last acknowledged, as shown after "Applied: ". */
    private String lastAcked;

    private final SetConfig config = new SetConfig();
    private final Status status = new Status();
    private final Ping ping = new Ping();
    private int pingsSent;
    private int repliesSeen;

    public ConfigurationActivity() {
        super(TAG);
    }

    @Override
    protected String[] rtActions() {
        return new String[] {Ping.ACTION_PONG, Status.ACTION_CONFIG_ACK, Status.ACTION_STATUS, ACTION_REFUSED};
    }

    // ---- sending -------------------------------------------------------------------------

    void sendPing() {
        send(ping.clear().number(++pingsSent).data(PING_MARK), Ping.ACTION_PING);
        pingResult.setText("Ping #" + pingsSent + " sent…");
    }

    void sendConfig() {
        send(config.volume(volume.getProgress()).noiseReduction(noiseReduction.isChecked() ? 1 : 0),
                SetConfig.ACTION_SET_CONFIG);
    }

    // ---- receiving -----------------------------------------------------------------------

    @Override
    protected void onRtIntent(RtIntent in) {
        if (in.refused()) {
            connection.setText("Refused: " + in.reason());
            connection.setTextColor(Color.rgb(0xff, 0xab, 0x91));
            return;
        }
        connection.setText("RT cell connected");
        connection.setTextColor(CONNECTED);
        long rtt = in.roundTripNanos();
        if (rtt > 0) {
            repliesSeen++;
            roundTrip.setText(formatMicros(rtt));
        }
        if (in.is(Ping.ACTION_PONG)) {
            int n = in.read(ping) ? ping.number() : -1;
            pingResult.setText("Pong #" + n + " in " + (rtt > 0 ? formatMicros(rtt) : "?"));
        } else if (in.is(Status.ACTION_STATUS) || in.is(Status.ACTION_CONFIG_ACK)) {
            if (!in.read(status)) {
                Log.w(TAG, "not a status from " + in.peer() + ": " + in.payload().length + " bytes");
                return;
            }
            showStatus(status, in.is(Status.ACTION_CONFIG_ACK));
        }
    }

    private void showStatus(Status s, boolean ack) {
        long misses = s.deadlineMisses();
        releases.setText(Long.toString(s.releases()));
        deadlineMisses.setText(Long.toString(misses));
        deadlineMisses.setTextColor(misses == 0 ? INK : WARN);
        worstLateness.setText(formatMicros(s.worstLatenessNanos()));
        levels.setText(String.format("in %.1f dBFS · out %.1f dBFS", s.inputRmsDbfs(), s.outputRmsDbfs()));
        // A status repeating the acknowledged settings keeps saying "Applied": the periodic status
        // (every 200 ms) would otherwise replace the acknowledgement before anyone could read it.
        String settings = "volume " + s.volume() + ", noise reduction " + (s.noiseReduction() != 0 ? "on" : "off");
        if (ack) {
            lastAcked = settings;
        }
        applied.setText((settings.equals(lastAcked) ? "Applied: " : "RT cell: ") + settings);
    }

    static String formatMicros(long nanos) {
        if (nanos >= 1_000_000L) {
            return String.format("%.2f ms", nanos / 1e6);
        }
        return String.format("%.1f µs", nanos / 1e3);
    }

    // ---- layout (in code: the bundle carries no resources) ---------------------------------

    @Override
    protected View buildUi() {
        ScrollView scroll = new ScrollView(this);
        scroll.setBackgroundColor(PAGE);
        LinearLayout page = new LinearLayout(this);
        page.setOrientation(LinearLayout.VERTICAL);
        scroll.addView(page, new ViewGroup.LayoutParams(ViewGroup.LayoutParams.MATCH_PARENT,
                ViewGroup.LayoutParams.WRAP_CONTENT));

        LinearLayout header = header("Cochlear Implant", "Configuration · RTDroid Android cell");
        connection = text("Waiting for the RT cell…", 13, Color.rgb(0xff, 0xd5, 0x80), false);
        connection.setTag("connection");
        connection.setPadding(0, dp(6), 0, 0);
        header.addView(connection);
        page.addView(header);

        LinearLayout settings = card(page, "Sound processing");
        LinearLayout volRow = row();
        volRow.addView(text("Volume", 16, INK, false), weight());
        volumeValue = text("50", 16, ACCENT, true);
        volumeValue.setTag("volume_value");
        volRow.addView(volumeValue);
        settings.addView(volRow);
        volume = new SeekBar(this);
        volume.setTag("volume");
        volume.setMax(100);
        volume.setProgress(50);
        volume.setPadding(dp(4), dp(10), dp(4), dp(10));
        volume.setOnSeekBarChangeListener(new SeekBar.OnSeekBarChangeListener() {
            @Override
            public void onProgressChanged(SeekBar seekBar, int progress, boolean fromUser) {
                volumeValue.setText(Integer.toString(progress));
                sendConfig();
            }

            @Override
            public void onStartTrackingTouch(SeekBar seekBar) {
            }

            @Override
            public void onStopTrackingTouch(SeekBar seekBar) {
            }
        });
        settings.addView(volume);
        noiseReduction = new Switch(this);
        noiseReduction.setTag("noise_reduction");
        noiseReduction.setText("Noise reduction");
        noiseReduction.setTextSize(TypedValue.COMPLEX_UNIT_SP, 16);
        noiseReduction.setTextColor(INK);
        noiseReduction.setPadding(0, dp(8), 0, dp(4));
        noiseReduction.setOnCheckedChangeListener(new CompoundButton.OnCheckedChangeListener() {
            @Override
            public void onCheckedChanged(CompoundButton buttonView, boolean isChecked) {
                sendConfig();
            }
        });
        settings.addView(noiseReduction);
        applied = text("Not yet acknowledged", 13, MUTED, false);
        applied.setTag("applied");
        applied.setPadding(0, dp(6), 0, 0);
        settings.addView(applied);

        LinearLayout status = card(page, "RT cell status");
        releases = valueRow(status, "Processing releases", INK, "releases");
        deadlineMisses = valueRow(status, "Deadline misses", INK, "deadline_misses");
        worstLateness = valueRow(status, "Worst lateness", INK, "worst_lateness");
        roundTrip = valueRow(status, "Last round trip", INK, "round_trip");
        levels = text("in – dBFS · out – dBFS", 14, MUTED, false);
        levels.setTag("levels");
        levels.setPadding(0, dp(8), 0, 0);
        status.addView(levels);

        LinearLayout link = card(page, "Cross-context link");
        Button ping = new Button(this);
        ping.setTag("ping");
        ping.setText("Ping RT cell");
        ping.setTextColor(Color.WHITE);
        ping.setAllCaps(false);
        ping.setTextSize(TypedValue.COMPLEX_UNIT_SP, 16);
        GradientDrawable pill = new GradientDrawable();
        pill.setColor(ACCENT);
        pill.setCornerRadius(dp(22));
        ping.setBackground(pill);
        ping.setOnClickListener(new View.OnClickListener() {
            @Override
            public void onClick(View v) {
                sendPing();
            }
        });
        link.addView(ping, new LinearLayout.LayoutParams(ViewGroup.LayoutParams.MATCH_PARENT,
                dp(44)));
        pingResult = text("No ping yet", 14, MUTED, false);
        pingResult.setTag("ping_result");
        pingResult.setGravity(Gravity.CENTER_HORIZONTAL);
        pingResult.setPadding(0, dp(10), 0, 0);
        link.addView(pingResult);
        return scroll;
    }

    private LinearLayout card(LinearLayout page, String heading) {
        LinearLayout card = card(page);
        TextView h = text(heading.toUpperCase(), 12, ACCENT, true);
        h.setPadding(0, 0, 0, dp(8));
        card.addView(h);
        return card;
    }

    private LinearLayout row() {
        LinearLayout r = new LinearLayout(this);
        r.setOrientation(LinearLayout.HORIZONTAL);
        r.setGravity(Gravity.CENTER_VERTICAL);
        return r;
    }

    private static LinearLayout.LayoutParams weight() {
        return new LinearLayout.LayoutParams(0, ViewGroup.LayoutParams.WRAP_CONTENT, 1f);
    }
}
