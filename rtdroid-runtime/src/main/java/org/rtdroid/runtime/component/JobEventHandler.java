package org.rtdroid.runtime.component;

import org.rtdroid.runtime.reflection.ExecutedInterval;

/**
 * A deadline-miss or cost-overrun handler (RTSJ's, declared in the manifest as
 * {@code <deadline-miss-handler>}/{@code <cost-overrun-handler>}): the runtime releases it at the
 * handler's own priority after a job of its owner (a periodic task's release, a component's
 * callback) missed its deadline or used more CPU time than its cost, with that job's entry of the
 * owner's past timeline (planned release and deadline, actual start and end, flags). It may change
 * the component's mode (a cheaper algorithm, a lower rate), never its timing declarations. Runs on
 * its own thread, one release at a time; must not allocate after warm-up.
 */
@FunctionalInterface
public interface JobEventHandler {
    /** {@code job} is the offending job (the latest one, if several were released before this ran). */
    void onJob(ExecutedInterval job);
}
