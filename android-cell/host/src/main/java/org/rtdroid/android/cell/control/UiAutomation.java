package org.rtdroid.android.cell.control;

import org.rtdroid.android.cell.am.CellActivityManager;
import org.rtdroid.android.cell.os.CellException;
import org.rtdroid.android.cell.os.IntentWire;
import org.rtdroid.android.cell.os.MainThread;
import org.rtdroid.android.cell.pm.InstalledApp;

import android.app.Activity;
import android.graphics.Bitmap;
import android.graphics.Canvas;
import android.view.View;
import android.widget.CompoundButton;
import android.widget.ProgressBar;
import android.widget.TextView;

import java.io.ByteArrayOutputStream;
import java.util.Base64;
import java.util.Map;
import org.rtdroid.json.JsonWriter;

/**
 * UI automation on the foreground activity, as a tester's finger would do it: clicks, SeekBar and
 * Switch changes, reading a TextView, and a screenshot of the window. An activity in the system
 * server's JVM is driven on its main looper, where an exception from the app's own handler marks
 * the app crashed. An activity on top in its app's own process is driven there: the action goes
 * over that process's attached connection (the one the kernel named at its attach, AOSP's
 * instrumentation through the app's {@code IApplicationThread}), the process runs it on its main
 * looper with {@link #perform}, and app code that throws ends that process, as on Android.
 */
public final class UiAutomation {
    /** PNG bytes per reply of an app process: in base64 they stay under the IPC's 64 KiB frame. */
    public static final int SCREENSHOT_CHUNK = 32 * 1024;
    /** The largest screenshot taken from an app process (a 4K ARGB frame compresses far below it). */
    static final int MAX_SCREENSHOT_BYTES = 64 * 1024 * 1024;

    /** The app's own code threw handling a UI action ({@code where}): the app crashed. */
    public static final class AppCodeThrew extends Exception {
        public final String where;

        AppCodeThrew(String where, Throwable cause) {
            super(cause);
            this.where = where;
        }
    }

    private final CellActivityManager am;

    public UiAutomation(CellActivityManager am) {
        this.am = am;
    }

    String click(String id) throws CellException {
        return act("click", id, null);
    }

    String seekBar(String id, long progress) throws CellException {
        return act("seekbar", id, Long.toString(progress));
    }

    String setSwitch(String id, boolean checked) throws CellException {
        return act("switch", id, Boolean.toString(checked));
    }

    String text(String id) throws CellException {
        return act("text", id, null);
    }

    /** PNG of the foreground activity's window, drawn by the framework's native graphics. */
    public byte[] screenshot() throws CellException {
        InstalledApp app = am.activities.processTop();
        if (app == null) {
            return MainThread.call(() -> screenshot(foreground()));
        }
        ByteArrayOutputStream png = new ByteArrayOutputStream();
        long total;
        do {
            Map<String, String> r = remote(app, "ui\nop=screenshot\noffset=" + png.size());
            byte[] chunk;
            try {
                total = Long.parseLong(r.getOrDefault("bytes", "-1"));
                chunk = Base64.getDecoder().decode(r.getOrDefault("png", ""));
            } catch (IllegalArgumentException e) {
                throw new CellException(500, app.packageName + "'s process sent a malformed screenshot: " + e.getMessage());
            }
            if (total <= 0 || total > MAX_SCREENSHOT_BYTES || chunk.length == 0 || png.size() + chunk.length > total) {
                throw new CellException(500, app.packageName + "'s process sent a malformed screenshot (" + total
                        + " bytes, a chunk of " + chunk.length + " at " + png.size() + ")");
            }
            png.writeBytes(chunk);
        } while (png.size() < total);
        return png.toByteArray();
    }

    private String act(String op, String id, String value) throws CellException {
        if (id.indexOf('\n') >= 0 || id.indexOf('\r') >= 0) {
            throw new CellException(400, "a view id is one line");
        }
        InstalledApp app = am.activities.processTop();
        if (app != null) {
            return remote(app, "ui\nop=" + op + "\nid=" + id + (value == null ? "" : "\nvalue=" + value)).get("json");
        }
        return MainThread.call(() -> {
            try {
                return perform(foreground(), op, id, value);
            } catch (AppCodeThrew t) {
                am.crashForeground(t.where, t.getCause());
                throw new CellException(500, "the app crashed handling " + t.where + ": " + t.getCause());
            }
        });
    }

    /**
     * A call to the process whose activity is on top: its reply's fields ({@code OK}), or its
     * refusal as the status and reason it names ({@code ERR 404 no view ...}).
     */
    private Map<String, String> remote(InstalledApp app, String request) throws CellException {
        String reply = am.processes.callRunning(app, request);
        String[] lines = reply.split("\n");
        if (lines[0].equals("OK")) {
            return IntentWire.fields(lines, 1);
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("ERR ([45][0-9][0-9]) (.*)", java.util.regex.Pattern.DOTALL)
                .matcher(reply);
        throw m.matches() ? new CellException(Integer.parseInt(m.group(1)), m.group(2))
                : new CellException(500, app.packageName + "'s process: " + reply);
    }

    /**
     * One UI action on an activity, on its main looper (the system server's, or an app process's
     * for its own activity): {@code click}, {@code seekbar} (value: the progress), {@code switch}
     * (value: true or false), {@code text}. Its JSON answer.
     */
    public static String perform(Activity a, String op, String id, String value) throws CellException, AppCodeThrew {
        View v = view(a, id);
        switch (op) {
            case "click" -> {
                boolean handled;
                try {
                    handled = v.performClick();
                } catch (Throwable t) {
                    throw new AppCodeThrew("onClick of view '" + id + "'", t);
                }
                return new JsonWriter().beginObject().field("clicked", id).field("handled", handled).endObject().toString();
            }
            case "seekbar" -> {
                if (!(v instanceof ProgressBar bar)) {
                    throw new CellException(400, "view '" + id + "' is a " + v.getClass().getSimpleName() + ", not a SeekBar");
                }
                long progress = number(value);
                if (progress < bar.getMin() || progress > bar.getMax()) {
                    throw new CellException(400, "progress " + progress + " is outside " + bar.getMin() + ".."
                            + bar.getMax() + " of '" + id + "'");
                }
                try {
                    bar.setProgress((int) progress);
                } catch (Throwable t) {
                    throw new AppCodeThrew("onProgressChanged of '" + id + "'", t);
                }
                return new JsonWriter().beginObject().field("id", id).field("progress", bar.getProgress()).endObject().toString();
            }
            case "switch" -> {
                if (!(v instanceof CompoundButton button)) {
                    throw new CellException(400, "view '" + id + "' is a " + v.getClass().getSimpleName() + ", not a Switch");
                }
                if (!"true".equals(value) && !"false".equals(value)) {
                    throw new CellException(400, "a switch is set to true or false, not " + value);
                }
                try {
                    button.setChecked(Boolean.parseBoolean(value));
                } catch (Throwable t) {
                    throw new AppCodeThrew("onCheckedChanged of '" + id + "'", t);
                }
                return new JsonWriter().beginObject().field("id", id).field("checked", button.isChecked()).endObject().toString();
            }
            case "text" -> {
                if (!(v instanceof TextView t)) {
                    throw new CellException(400, "view '" + id + "' is a " + v.getClass().getSimpleName() + ", which has no text");
                }
                return new JsonWriter().beginObject().field("id", id).field("text", t.getText().toString()).endObject().toString();
            }
            default -> throw new CellException(400, "no UI action '" + op + "' (click, seekbar, switch, text)");
        }
    }

    /** PNG of an activity's window, on its main looper. */
    public static byte[] screenshot(Activity a) {
        View root = a.getWindow().getDecorView();
        int w = root.getWidth();
        int h = root.getHeight();
        if (w <= 0 || h <= 0) {
            android.util.DisplayMetrics dm = a.getResources().getDisplayMetrics();
            w = dm.widthPixels;
            h = dm.heightPixels;
            root.measure(View.MeasureSpec.makeMeasureSpec(w, View.MeasureSpec.EXACTLY),
                    View.MeasureSpec.makeMeasureSpec(h, View.MeasureSpec.EXACTLY));
            root.layout(0, 0, w, h);
        }
        Bitmap bmp = Bitmap.createBitmap(w, h, Bitmap.Config.ARGB_8888);
        root.draw(new Canvas(bmp));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        bmp.compress(Bitmap.CompressFormat.PNG, 100, out);
        bmp.recycle();
        return out.toByteArray();
    }

    private static long number(String value) throws CellException {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new CellException(400, "progress " + value + " is not an integer");
        }
    }

    private Activity foreground() throws CellException {
        Activity a = am.activities.foreground();
        if (a == null) {
            throw new CellException(409, "no activity is in the foreground");
        }
        return a;
    }

    /** A view of the activity by its id's resource name, or by its tag (UIs built in code). */
    private static View view(Activity a, String id) throws CellException {
        View root = a.getWindow().getDecorView();
        int resId = a.getResources().getIdentifier(id, "id", a.getPackageName());
        View v = resId != 0 ? root.findViewById(resId) : null;
        if (v == null) {
            v = root.findViewWithTag(id);
        }
        if (v == null) {
            throw new CellException(404, "no view with id '" + id + "' in " + a.getClass().getName());
        }
        return v;
    }
}
