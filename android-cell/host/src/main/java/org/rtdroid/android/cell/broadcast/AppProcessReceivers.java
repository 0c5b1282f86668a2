package org.rtdroid.android.cell.broadcast;

import org.rtdroid.android.cell.pm.InstalledApp;

import android.content.Intent;

/**
 * Where the manifest receivers of an app that runs in a process of its own are run: in that
 * process (the ActivityManager's process list), started first when it has none.
 */
public interface AppProcessReceivers {
    /** Whether the app's receivers run in a process of its own. */
    boolean hosts(InstalledApp app);

    /**
     * Hands the broadcast to the receiver in the app's process; does not wait for it. The future
     * completes once the process ran the receiver or the delivery failed (an ordered broadcast's
     * result waits for it, as AOSP's waits for the receiver's finishReceiver), with the
     * {@code System.nanoTime()} at which the receiver returned there (every process on the
     * machine reads the one CLOCK_MONOTONIC), or -1 when not known.
     */
    java.util.concurrent.CompletableFuture<Long> deliver(InstalledApp app, String receiverClass, Intent intent);

    /** Hands the broadcast to a receiver the app's process registered ({@code id}, the process's); as {@link #deliver}. */
    java.util.concurrent.CompletableFuture<Long> deliverRegistered(InstalledApp app, long id, Intent intent);
}
