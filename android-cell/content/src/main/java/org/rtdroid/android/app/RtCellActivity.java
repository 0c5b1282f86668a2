package org.rtdroid.android.app;

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
import org.rtdroid.contract.Payload;

/**
 * An activity of an app that talks to the RT cell through the Android-side proxy: it receives the
 * proxy's broadcasts of the actions it names while it is resumed (registered in {@code onResume},
 * unregistered in {@code onPause}, as Android apps do), sends its app contract's payloads to the
 * RT cell through the proxy ({@link #send}, {@link ProxyClient}), and builds its UI in code (an app bundle of the cell carries no resources)
 * from the pieces below, in the apps' shared look.
 */
public abstract class RtCellActivity extends Activity {
    /** What the proxy broadcasts when it refuses an app's send ({@link RtIntent#refused()}). */
    public static final String ACTION_REFUSED = ProxyIntents.ACTION_REFUSED;

    protected static final int INK = Color.rgb(0x1d, 0x23, 0x33);
    protected static final int MUTED = Color.rgb(0x5f, 0x6b, 0x7a);
    protected static final int PAGE = Color.rgb(0xee, 0xf1, 0xf5);
    protected static final int HEADER = Color.rgb(0x0f, 0x3d, 0x5c);

    private final String tag;
    private final ProxyClient proxy = new ProxyClient(this);

    private final BroadcastReceiver fromRt = new BroadcastReceiver() {
        @Override
        public void onReceive(Context context, Intent intent) {
            onRtIntent(proxy.read(intent, System.nanoTime()));
        }
    };

    /** @param tag the app's log tag: "{tag} created" is logged when the activity is */
    protected RtCellActivity(String tag) {
        this.tag = tag;
    }

    /** The actions of the proxy's broadcasts this activity receives while resumed. */
    protected abstract String[] rtActions();

    /** One broadcast of the proxy, on the main thread (the RtIntent is reused after this returns). */
    protected abstract void onRtIntent(RtIntent intent);

    /** The activity's whole view, built in code. */
    protected abstract View buildUi();

    @Override
    protected void onCreate(Bundle savedInstanceState) {
        super.onCreate(savedInstanceState);
        // The header carries the title; the window's own title bar would only take room.
        requestWindowFeature(Window.FEATURE_NO_TITLE);
        setContentView(buildUi());
        Log.i(tag, tag + " created");
    }

    @Override
    protected void onResume() {
        super.onResume();
        IntentFilter filter = new IntentFilter();
        for (String action : rtActions()) {
            filter.addAction(action);
        }
        registerReceiver(fromRt, filter);
    }

    @Override
    protected void onPause() {
        unregisterReceiver(fromRt);
        super.onPause();
    }

    /**
     * Sends one payload of the app's contract to the RT cell on its channel, in its priority
     * class: the proxy writes it; the answer (with its round trip) and any refusal come back to
     * {@link #onRtIntent}.
     *
     * @return the send's correlation id
     */
    protected long send(Payload payload, String action) {
        return proxy.send(payload, action);
    }

    /** Whether {@code in} is the proxy's refusal; if so, {@code status} says "Refused: " and why. */
    protected boolean showRefusal(RtIntent in, TextView status) {
        if (!in.refused()) {
            return false;
        }
        status.setText("Refused: " + in.reason());
        return true;
    }

    /** Reads {@code in}'s payload into {@code into}; one that is not {@code what} is logged and gives false. */
    protected boolean read(RtIntent in, Payload into, String what) {
        if (in.read(into)) {
            return true;
        }
        Log.w(tag, "not " + what + " from " + in.peer() + ": " + in.payload().length + " bytes");
        return false;
    }

    // ---- layout ----------------------------------------------------------------------------

    /** An app's page: a column on the page colour, opened by its header band (title and subtitle). */
    protected LinearLayout page(String title, String subtitle) {
        LinearLayout page = new LinearLayout(this);
        page.setOrientation(LinearLayout.VERTICAL);
        page.setBackgroundColor(PAGE);
        page.addView(header(title, subtitle));
        return page;
    }

    /** The page's header band: the app's title and a subtitle; the caller may add more lines. */
    protected LinearLayout header(String title, String subtitle) {
        LinearLayout header = new LinearLayout(this);
        header.setOrientation(LinearLayout.VERTICAL);
        header.setBackgroundColor(HEADER);
        header.setPadding(dp(20), dp(16), dp(20), dp(16));
        header.addView(text(title, 22, Color.WHITE, true));
        header.addView(text(subtitle, 13, Color.rgb(0xb8, 0xd4, 0xe6), false));
        return header;
    }

    /** A white rounded card added to {@code page} below what is there; the caller fills it. */
    protected LinearLayout card(LinearLayout page) {
        LinearLayout card = new LinearLayout(this);
        card.setOrientation(LinearLayout.VERTICAL);
        GradientDrawable bg = new GradientDrawable();
        bg.setColor(Color.WHITE);
        bg.setCornerRadius(dp(12));
        bg.setStroke(dp(1), Color.rgb(0xd9, 0xdf, 0xe7));
        card.setBackground(bg);
        card.setPadding(dp(16), dp(14), dp(16), dp(14));
        page.addView(card, cardMargins());
        return card;
    }

    /**
     * A banner added to {@code page} below what is there: a rounded card in {@code color} whose
     * headline (large, bold, white, centred) tells the app's state at a glance.
     *
     * @param padding dp above and below the banner's text
     * @param tag the headline's id name, as the tests find it
     */
    protected Banner banner(LinearLayout page, int color, int padding, String headline, String tag) {
        LinearLayout card = new LinearLayout(this);
        card.setOrientation(LinearLayout.VERTICAL);
        card.setGravity(Gravity.CENTER_HORIZONTAL);
        GradientDrawable background = new GradientDrawable();
        background.setColor(color);
        background.setCornerRadius(dp(12));
        card.setBackground(background);
        card.setPadding(dp(16), dp(padding), dp(16), dp(padding));
        page.addView(card, cardMargins());
        return new Banner(card, background, text(headline, 24, Color.WHITE, true), tag);
    }

    /** A banner ({@link #banner}): its headline, further lines, and its colour. */
    protected final class Banner {
        private final LinearLayout card;
        private final GradientDrawable background;
        private final TextView headline;

        private Banner(LinearLayout card, GradientDrawable background, TextView headline, String tag) {
            this.card = card;
            this.background = background;
            this.headline = add(headline, tag);
        }

        public TextView headline() {
            return headline;
        }

        /** A white, centred line below what the banner shows. */
        public TextView line(String s, String tag) {
            return add(text(s, 15, Color.WHITE, false), tag);
        }

        public void setColor(int color) {
            background.setColor(color);
        }

        private TextView add(TextView t, String tag) {
            t.setTag(tag);
            t.setGravity(Gravity.CENTER_HORIZONTAL);
            card.addView(t);
            return t;
        }
    }

    /** How a card sits on the page: full width, 12 dp from the sides and from what is above. */
    protected LinearLayout.LayoutParams cardMargins() {
        LinearLayout.LayoutParams lp = new LinearLayout.LayoutParams(
                ViewGroup.LayoutParams.MATCH_PARENT, ViewGroup.LayoutParams.WRAP_CONTENT);
        lp.setMargins(dp(12), dp(12), dp(12), 0);
        return lp;
    }

    /**
     * A row "label ........ value" added to {@code card}.
     *
     * @param tag the value's id name, as the tests find it
     * @return the value's view (showing "–" until set)
     */
    protected TextView valueRow(LinearLayout card, String label, int labelColor, String tag) {
        LinearLayout r = new LinearLayout(this);
        r.setOrientation(LinearLayout.HORIZONTAL);
        r.setGravity(Gravity.CENTER_VERTICAL);
        r.setPadding(0, dp(4), 0, dp(4));
        r.addView(text(label, 15, labelColor, false),
                new LinearLayout.LayoutParams(0, ViewGroup.LayoutParams.WRAP_CONTENT, 1f));
        TextView value = text("–", 15, INK, true);
        value.setTag(tag);
        r.addView(value);
        card.addView(r);
        return value;
    }

    protected TextView text(String s, int sp, int color, boolean bold) {
        TextView t = new TextView(this);
        t.setText(s);
        t.setTextSize(TypedValue.COMPLEX_UNIT_SP, sp);
        t.setTextColor(color);
        if (bold) {
            t.setTypeface(Typeface.DEFAULT_BOLD);
        }
        return t;
    }

    protected int dp(int v) {
        return (int) (v * getResources().getDisplayMetrics().density + 0.5f);
    }
}
