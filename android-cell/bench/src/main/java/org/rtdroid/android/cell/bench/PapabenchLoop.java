package org.rtdroid.android.cell.bench;

import org.rtdroid.logic.papabench.Task;

import android.os.Handler;
import android.os.SystemClock;

/**
 * jPapaBench's 14 tasks as an Android app runs them: each a {@link Handler} message on one looper,
 * released at {@code u0} + its offset + k × its period (uptime ms), reposted for its next release
 * after it ran; a release that overran skips the periods it ran into.
 */
final class PapabenchLoop {

    /** One task's release. */
    interface Release {
        /** Runs {@code task}'s release planned at {@code plannedMillis} (uptime); false ends the task's releases. */
        boolean run(Task task, long plannedMillis);
    }

    private PapabenchLoop() {
    }

    /** Posts every task's first release on {@code looper}'s handler; {@code release} runs each release there. */
    static void post(Handler looper, long u0, Release release) {
        for (Task task : Task.values()) {
            looper.postAtTime(new Runnable() {
                long k;

                @Override
                public void run() {
                    if (!release.run(task, u0 + task.offsetMillis + k * task.periodMillis)) {
                        return;
                    }
                    long now = SystemClock.uptimeMillis(); // an overrun skips the periods it ran into
                    do {
                        k++;
                    } while (u0 + task.offsetMillis + k * task.periodMillis < now - task.periodMillis);
                    looper.postAtTime(this, u0 + task.offsetMillis + k * task.periodMillis);
                }
            }, u0 + task.offsetMillis);
        }
    }
}
