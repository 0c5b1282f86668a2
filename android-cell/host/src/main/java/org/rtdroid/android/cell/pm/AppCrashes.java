package org.rtdroid.android.cell.pm;

/** Where app code that threw is reported: the activity manager marks the app crashed and takes it down. */
public interface AppCrashes {
    void crash(InstalledApp app, String where, Throwable t);
}
