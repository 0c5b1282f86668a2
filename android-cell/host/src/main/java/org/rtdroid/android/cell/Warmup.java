package org.rtdroid.android.cell;

import android.app.Activity;
import android.content.Context;
import android.graphics.Bitmap;
import android.graphics.Canvas;
import android.graphics.Color;
import android.graphics.drawable.GradientDrawable;
import android.view.View;
import android.widget.Button;
import android.widget.LinearLayout;
import android.widget.ScrollView;
import android.widget.SeekBar;
import android.widget.Switch;
import android.widget.TextView;

import java.io.ByteArrayOutputStream;

import org.robolectric.Robolectric;
import org.robolectric.android.controller.ActivityController;

/**
 * The first activity to inflate widgets pays for loading the native graphics runtime, fonts,
 * styles and linking thousands of call sites (seconds on this machine). The cell pays it once,
 * as the main looper's first work after READY, by building, drawing and encoding a throwaway view
 * tree, so that the first app launch (queued behind it) is as fast as later ones.
 */
final class Warmup {
    private Warmup() {
    }

    static long run(Context app) {
        long t0 = System.nanoTime();
        // A real (throwaway) activity: its window, decor, theme and action bar are what an app's
        // first launch would otherwise load.
        ActivityController<Activity> controller = Robolectric.buildActivity(Activity.class).setup();
        Activity c = controller.get();
        ScrollView scroll = new ScrollView(c);
        LinearLayout page = new LinearLayout(c);
        page.setOrientation(LinearLayout.VERTICAL);
        scroll.addView(page);
        TextView t = new TextView(c);
        t.setText("warm-up");
        page.addView(t);
        SeekBar s = new SeekBar(c);
        s.setMax(100);
        s.setProgress(40);
        page.addView(s);
        Switch sw = new Switch(c);
        sw.setText("switch");
        page.addView(sw);
        Button b = new Button(c);
        b.setText("button");
        GradientDrawable g = new GradientDrawable();
        g.setColor(Color.BLUE);
        g.setCornerRadius(8);
        b.setBackground(g);
        page.addView(b);
        int w = 360;
        int h = 640;
        c.setContentView(scroll);
        View root = c.getWindow().getDecorView();
        root.measure(View.MeasureSpec.makeMeasureSpec(w, View.MeasureSpec.EXACTLY),
                View.MeasureSpec.makeMeasureSpec(h, View.MeasureSpec.EXACTLY));
        root.layout(0, 0, w, h);
        Bitmap bmp = Bitmap.createBitmap(w, h, Bitmap.Config.ARGB_8888);
        root.draw(new Canvas(bmp));
        bmp.compress(Bitmap.CompressFormat.PNG, 100, new ByteArrayOutputStream());
        bmp.recycle();
        controller.pause().stop().destroy();
        return (System.nanoTime() - t0) / 1_000_000;
    }
}
