package org.rtdroid.android.cell;

import org.junit.runner.JUnitCore;
import org.junit.runner.Request;
import org.junit.runner.Result;
import org.junit.runner.notification.Failure;

/**
 * An app process's entry point, {@code AppProcessMain --binder SOCKET}: the system server starts it
 * as root (zygote's role: the framework loads before the app is known), and tells it on stdin
 * which app it becomes ({@code specialize package=PKG uid=UID code=CLASSES.jar data=DIR}). Like the
 * cell, its life is one "test" in the framework sandbox ({@link AppProcessSandbox}).
 */
public final class AppProcessMain {
    static final String PROP_BINDER = "org.rtdroid.app.binder";
    static final String PROP_START_NANOS = "org.rtdroid.app.startNanos";

    private AppProcessMain() {
    }

    public static void main(String[] args) {
        System.setProperty(PROP_START_NANOS, Long.toString(System.nanoTime()));
        if (args.length != 2 || !args[0].equals("--binder")) {
            System.err.println("usage: AppProcessMain --binder SOCKET (then, on stdin: specialize package=PKG uid=UID "
                    + "code=CLASSES.jar data=DIR)");
            System.exit(2);
            return;
        }
        System.setProperty(PROP_BINDER, args[1]);
        Result result = new JUnitCore().run(Request.method(AppProcessSandbox.class, "serve"));
        for (Failure f : result.getFailures()) {
            System.err.println("app process failed: " + f.getMessage());
            System.err.println(f.getTrace());
        }
        System.out.flush();
        Runtime.getRuntime().halt(result.getFailureCount() > 0 ? 1 : 0);
    }
}
