package org.rtdroid.runtime.component;

/**
 * A real-time service (dissertation 4.2.1): Android's service callbacks, but on its own real-time
 * thread at its declared priority rather than a shared main thread. {@link #onCreate} and
 * {@link #onStartCommand} run at start; periodic tasks registered in {@code onStartCommand} start
 * when it returns; handlers registered for subscribed channels then run on the service's thread;
 * {@link #onDestroy} runs after the tasks have stopped.
 */
public abstract class RealtimeService extends RealtimeComponent {
    /** Called once, first, on the service's thread. Look up channel ends here. */
    public void onCreate() {}

    /** Called once after {@link #onCreate}; register periodic tasks and handlers here. */
    public void onStartCommand() {}

    /** Called once when the application is undeployed or the service stops, after its tasks stopped. */
    public void onDestroy() {}

    /**
     * Binds a periodic task declared in the manifest ({@code <periodic-task name>}) to its code.
     * Allowed only in {@link #onCreate} or {@link #onStartCommand}.
     */
    protected final void registerTask(String taskName, PeriodicTask task) { rt().registerTask(taskName, task); }

    /**
     * Handles, on this service's thread, the messages of a message or cross-context channel this
     * service subscribes to. Without a handler the channel is left for polling
     * ({@link #messageChannel}). Allowed only in {@link #onCreate} or {@link #onStartCommand}.
     */
    protected final void registerHandler(String channel, RealtimeHandler handler) { rt().registerHandler(channel, handler); }

    /**
     * Set-up: the code of registered task {@code taskName}'s {@code <deadline-miss-handler>}, released
     * at its declared priority after a release of the task completes past its deadline or is skipped.
     */
    protected final void onDeadlineMiss(String taskName, JobEventHandler handler) {
        rt().setJobHandler(taskName, org.rtdroid.runtime.manifest.JobHandlerDecl.Kind.DEADLINE_MISS, handler);
    }

    /**
     * Set-up: the code of registered task {@code taskName}'s {@code <cost-overrun-handler>}, released at
     * its declared priority after a release used more CPU time than the task's cost (wcet).
     */
    protected final void onCostOverrun(String taskName, JobEventHandler handler) {
        rt().setJobHandler(taskName, org.rtdroid.runtime.manifest.JobHandlerDecl.Kind.COST_OVERRUN, handler);
    }

    /**
     * A reflective service's real-time line (its manifest's {@code <reflection>}): plan actions on it;
     * its execution engine runs them at the engine's priority from the end of {@link #onStartCommand}.
     *
     * @throws IllegalStateException the service is not reflective
     */
    protected final org.rtdroid.runtime.reflection.RealTimeLine timeline() { return rt().reflectiveTimeline(); }

    /** Set-up: the strategist the engine calls after each action (required for a reflective service). */
    protected final void strategist(org.rtdroid.runtime.reflection.Strategist strategist) { rt().setStrategist(strategist); }

    /** The engine running this service's timeline (null until the service started), e.g. for calibration. */
    protected final org.rtdroid.runtime.reflection.ExecutionEngine executionEngine() { return rt().engine(); }
}
