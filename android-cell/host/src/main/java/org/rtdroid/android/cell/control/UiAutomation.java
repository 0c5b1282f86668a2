package org.rtdroid.android.cell.control;

import org.rtdroid.android.cell.am.CellActivityManager;
import org.rtdroid.android.cell.os.CellException;
import org.rtdroid.android.cell.os.MainThread;

import android.app.Activity;
import android.graphics.Bitmap;
import android.graphics.Canvas;
import android.view.View;
import android.widget.CompoundButton;
import android.widget.ProgressBar;
import android.widget.TextView;

import java.io.ByteArrayOutputStream;
import org.rtdroid.json.JsonWriter;

/**
 * UI automation on the foreground activity, as a tester's finger would do it: clicks, SeekBar and
 * Switch changes, reading a TextView, and a screenshot of the window. Each call runs on the main
 * looper; an exception from the app's own handler marks the app crashed.
 */
public final class UiAutomation {
    private final CellActivityManager am;

    public UiAutomation(CellActivityManager am) {
        this.am = am;
    }

    String click(String id) throws CellException {
        return MainThread.call(() -> {
            View v = view(id);
            boolean handled;
            try {
                handled = v.performClick();
            } catch (Throwable t) {
                am.crashForeground("onClick of view '" + id + "'", t);
                throw new CellException(500, "the app crashed handling the click on '" + id + "': " + t);
            }
            return new JsonWriter().beginObject().field("clicked", id).field("handled", handled).endObject().toString();
        });
    }

    String seekBar(String id, long progress) throws CellException {
        return MainThread.call(() -> {
            View v = view(id);
            if (!(v instanceof ProgressBar)) {
                throw new CellException(400, "view '" + id + "' is a " + v.getClass().getSimpleName()
                        + ", not a SeekBar");
            }
            ProgressBar bar = (ProgressBar) v;
            if (progress < bar.getMin() || progress > bar.getMax()) {
                throw new CellException(400, "progress " + progress + " is outside " + bar.getMin() + ".."
                        + bar.getMax() + " of '" + id + "'");
            }
            try {
                bar.setProgress((int) progress);
            } catch (Throwable t) {
                am.crashForeground("onProgressChanged of '" + id + "'", t);
                throw new CellException(500, "the app crashed handling the SeekBar change: " + t);
            }
            return new JsonWriter().beginObject().field("id", id).field("progress", bar.getProgress()).endObject().toString();
        });
    }

    String setSwitch(String id, boolean checked) throws CellException {
        return MainThread.call(() -> {
            View v = view(id);
            if (!(v instanceof CompoundButton)) {
                throw new CellException(400, "view '" + id + "' is a " + v.getClass().getSimpleName()
                        + ", not a Switch");
            }
            try {
                ((CompoundButton) v).setChecked(checked);
            } catch (Throwable t) {
                am.crashForeground("onCheckedChanged of '" + id + "'", t);
                throw new CellException(500, "the app crashed handling the switch: " + t);
            }
            return new JsonWriter().beginObject().field("id", id).field("checked", ((CompoundButton) v).isChecked())
                    .endObject().toString();
        });
    }

    String text(String id) throws CellException {
        return MainThread.call(() -> {
            View v = view(id);
            if (!(v instanceof TextView)) {
                throw new CellException(400, "view '" + id + "' is a " + v.getClass().getSimpleName()
                        + ", which has no text");
            }
            return new JsonWriter().beginObject().field("id", id).field("text", ((TextView) v).getText().toString())
                    .endObject().toString();
        });
    }

    /** PNG of the foreground activity's window, drawn by the framework's native graphics. */
    public byte[] screenshot() throws CellException {
        return MainThread.call(() -> {
            Activity a = foreground();
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
        });
    }

    private Activity foreground() throws CellException {
        Activity a = am.activities.foreground();
        if (a == null) {
            throw new CellException(409, "no activity is in the foreground");
        }
        return a;
    }

    /** A view of the foreground activity by its id's resource name, or by its tag (UIs built in code). */
    private View view(String id) throws CellException {
        Activity a = foreground();
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
