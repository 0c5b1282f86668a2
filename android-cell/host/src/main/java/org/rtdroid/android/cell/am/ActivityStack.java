package org.rtdroid.android.cell.am;

import org.rtdroid.android.cell.os.CellException;
import org.rtdroid.android.cell.os.CellLog;
import org.rtdroid.android.cell.pm.AppBundle;
import org.rtdroid.android.cell.pm.AppCrashes;
import org.rtdroid.android.cell.pm.CellPackageManager;
import org.rtdroid.android.cell.pm.InstalledApp;
import org.rtdroid.android.cell.pm.IntentResolver;

import static org.robolectric.Shadows.shadowOf;

import android.app.Activity;
import android.app.Application;
import android.content.ComponentName;
import android.content.Intent;
import android.os.Handler;

import java.util.ArrayList;
import java.util.List;

import org.robolectric.Robolectric;
import org.robolectric.android.controller.ActivityController;
import org.robolectric.shadows.ShadowApplication;

/**
 * The cell's activity stack: launches activities with their lifecycle callbacks in order (the
 * previous top paused and stopped, the new one created, started, resumed), answers which activity
 * is in the foreground, and routes an app's own startActivity calls. Main looper only.
 */
public final class ActivityStack {
    static final String TAG = "ActivityManager";
    static final long START_POLL_MILLIS = 20;

    private final Application application;
    private final Handler main;
    private final CellPackageManager packages;
    private final AppCrashes crashes;
    private final List<ActivityRecord> stack = new ArrayList<>(); // top = last
    /**
     * The app whose activity, in that app's own process, is on top of every activity here (null:
     * the top of {@link #stack} is): where UI automation and the screenshot go.
     */
    private volatile InstalledApp processTop;
    private volatile String processTopActivity;
    private volatile boolean running = true;

    private static final class ActivityRecord {
        final InstalledApp app;
        final ActivityController<? extends Activity> controller;
        boolean resumed;

        ActivityRecord(InstalledApp app, ActivityController<? extends Activity> controller) {
            this.app = app;
            this.controller = controller;
        }
    }

    ActivityStack(Application application, Handler main, CellPackageManager packages, AppCrashes crashes) {
        this.application = application;
        this.main = main;
        this.packages = packages;
        this.crashes = crashes;
    }

    /**
     * Asks an app's running process to pause and stop its activity (never starting one; off the
     * main looper); set with the app processes.
     */
    volatile java.util.function.Consumer<InstalledApp> pauseInProcess = app -> { };

    /** Starts routing the apps' startActivity calls. */
    void start() {
        main.post(this::pollStartedActivities);
    }

    void stop() {
        running = false;
    }

    Activity launch(InstalledApp app) throws CellException {
        if (app.system || app.bundle == null) {
            throw new CellException(400, app.packageName + " is a system app without a launcher activity");
        }
        Intent intent = new Intent(Intent.ACTION_MAIN).addCategory(Intent.CATEGORY_LAUNCHER)
                .setClassName(app.packageName, app.bundle.launcher.className());
        return startActivity(app, intent);
    }

    /** Starts one of the app's declared activities by class (adb's {@code am start -n}). */
    Activity launch(InstalledApp app, String cls) throws CellException {
        if (app.bundle == null || app.bundle.activities.stream().noneMatch(a -> a.className().equals(cls))) {
            throw new CellException(404, "unable to resolve Intent { cmp=" + app.packageName + "/" + cls
                    + " }: " + app.packageName + " declares no such activity");
        }
        return startActivity(app, new Intent(Intent.ACTION_MAIN).setClassName(app.packageName, cls));
    }

    private Activity startActivity(InstalledApp app, Intent intent) throws CellException {
        String cls = intent.getComponent().getClassName();
        if (processTop != null) { // an activity here comes on top of an app process's: it pauses and stops
            pauseInProcess.accept(processTop);
        }
        processTop = null;
        ActivityRecord top = top();
        if (top != null && top.app == app && top.controller.get().getClass().getName().equals(cls) && top.resumed) {
            return top.controller.get();
        }
        pauseAndStop(top);
        ActivityController<? extends Activity> controller;
        try {
            Class<? extends Activity> c = Class.forName(cls, true, app.loader).asSubclass(Activity.class);
            controller = Robolectric.buildActivity(c, intent);
            stack.add(new ActivityRecord(app, controller));
            controller.setup();
        } catch (Throwable t) {
            crashes.crash(app, "launching " + cls, t);
            throw new CellException(500, "activity " + cls + " of " + app.packageName + " crashed while launching: "
                    + t);
        }
        top().resumed = true;
        app.state = InstalledApp.State.RUNNING;
        CellLog.i(TAG, "Displayed " + app.packageName + "/" + cls);
        return controller.get();
    }

    /** The activity on top here, if resumed, pauses and stops (an app that throws there is recorded as crashed). */
    private void pauseAndStop(ActivityRecord top) {
        if (top == null || !top.resumed) {
            return;
        }
        try {
            top.controller.pause().stop();
        } catch (Throwable t) {
            crashes.crash(top.app, "pausing " + top.controller.get().getClass().getName(), t);
        }
        top.resumed = false;
    }

    /**
     * An app's activity, launched in the app's own process, came on top: the activity on top here
     * pauses and stops, as for a launch here.
     */
    void resumedInProcess(InstalledApp app, String activity) {
        ActivityRecord top = top();
        pauseAndStop(top);
        if (processTop != null && processTop != app) {
            pauseInProcess.accept(processTop); // another app process's activity was on top
        }
        processTopActivity = activity;
        processTop = app;
    }

    /** The resumed activity on top, here or in an app's process, or null. */
    public ComponentName foregroundComponent() {
        InstalledApp inProcess = processTop;
        if (inProcess != null) {
            return new ComponentName(inProcess.packageName, processTopActivity);
        }
        ActivityRecord top = top();
        return top != null && top.resumed ? new ComponentName(top.app.packageName, top.controller.get().getClass().getName())
                : null;
    }

    /** The app whose activity in its own process is on top, or null (any thread). */
    public InstalledApp processTop() {
        return processTop;
    }

    /** The app's process ended, or the app stopped: its activity is no longer on top. */
    void leftProcess(InstalledApp app) {
        if (processTop == app) {
            processTop = null;
            resumeTop();
        }
    }

    private ActivityRecord top() {
        return stack.isEmpty() ? null : stack.get(stack.size() - 1);
    }

    /** The resumed activity on top here (in the system server's JVM), or null. */
    public Activity foreground() {
        ActivityRecord top = top();
        return top != null && top.resumed ? top.controller.get() : null;
    }

    /** The app whose activity is on top (resumed or not), or null: who owns UI code that threw. */
    InstalledApp topApp() {
        ActivityRecord top = top();
        return top == null ? null : top.app;
    }

    /** Destroys the app's activities (lifecycle order: paused, stopped, destroyed). */
    void finishActivitiesOf(InstalledApp app) {
        for (int i = stack.size() - 1; i >= 0; i--) {
            ActivityRecord r = stack.get(i);
            if (r.app != app) {
                continue;
            }
            stack.remove(i);
            try {
                if (r.resumed) {
                    r.controller.pause();
                }
                r.controller.stop().destroy();
            } catch (Throwable t) {
                CellLog.log('E', TAG, app.packageName, "destroying " + r.controller.get().getClass().getName()
                        + " threw", t);
            }
        }
    }

    /** Brings the activity now on top back to the foreground after the one above it went. */
    void resumeTop() {
        ActivityRecord top = top();
        if (top != null && !top.resumed && processTop == null) {
            try {
                top.controller.restart().resume();
                top.resumed = true;
            } catch (Throwable t) {
                crashes.crash(top.app, "resuming " + top.controller.get().getClass().getName(), t);
            }
        }
    }

    /** Activity.startActivity goes through Instrumentation, which Robolectric records: poll it. */
    private void pollStartedActivities() {
        if (!running) {
            return;
        }
        try {
            Intent next;
            ShadowApplication sa = shadowOf(application);
            while ((next = sa.getNextStartedActivity()) != null) {
                routeStartActivity(next);
            }
        } catch (Throwable t) {
            CellLog.e(TAG, "startActivity routing failed", t);
        }
        main.postDelayed(this::pollStartedActivities, START_POLL_MILLIS);
    }

    private void routeStartActivity(Intent intent) {
        ComponentName cn = intent.getComponent();
        for (InstalledApp app : packages.installed()) {
            if (app.bundle == null || app.state == InstalledApp.State.CRASHED) {
                continue;
            }
            for (AppBundle.Component c : app.bundle.activities) {
                boolean match = cn != null ? cn.getClassName().equals(c.className()) : IntentResolver.matches(c, intent);
                if (match) {
                    Intent i = new Intent(intent).setClassName(app.packageName, c.className());
                    try {
                        startActivity(app, i);
                    } catch (CellException e) {
                        CellLog.w(TAG, e.getMessage());
                    }
                    return;
                }
            }
        }
        CellLog.w(TAG, "no activity found to handle " + intent);
    }
}
