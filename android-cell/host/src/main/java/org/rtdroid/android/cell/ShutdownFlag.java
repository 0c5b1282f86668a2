package org.rtdroid.android.cell;

/**
 * Whether the JVM is shutting down through a signal. Lives in a system property because the
 * sandboxed host and {@link Main} load this class in different class loaders.
 */
final class ShutdownFlag {
    static final String PROP = "org.rtdroid.cell.signalled";

    private ShutdownFlag() {
    }

    static void markSignalled() {
        System.setProperty(PROP, "true");
    }

    static boolean inShutdownHook() {
        return Boolean.getBoolean(PROP);
    }
}
