package org.rtdroid.runtime.manifest;

import java.util.List;

/**
 * One {@code <service>} or {@code <receiver>}. {@code className} is its {@code name} attribute;
 * {@code reflection} its {@code <reflection>} (null: not reflective); {@code handlers} the miss and
 * overrun handlers of its own callbacks.
 */
public record ComponentDecl(ComponentKind kind, String className, int priority, MemSizes memSizes,
                            long startNanos, FailurePolicy failurePolicy, List<PeriodicTaskDecl> tasks,
                            List<IntentFilterDecl> intentFilters, int line, ReflectionDecl reflection,
                            List<JobHandlerDecl> handlers) {

    /** A component that is not reflective and declares no miss or overrun handler of its callbacks. */
    public ComponentDecl(ComponentKind kind, String className, int priority, MemSizes memSizes, long startNanos,
                         FailurePolicy failurePolicy, List<PeriodicTaskDecl> tasks, List<IntentFilterDecl> intentFilters,
                         int line) {
        this(kind, className, priority, memSizes, startNanos, failurePolicy, tasks, intentFilters, line, null, List.of());
    }

    /** Its handler of that kind (of its own callbacks), or null. */
    public JobHandlerDecl handler(JobHandlerDecl.Kind kind) { return JobHandlerDecl.find(handlers, kind); }

    /** Short name (simple class name) used in status lists and error messages. */
    public String simpleName() {
        int dot = Math.max(className.lastIndexOf('.'), className.lastIndexOf('$'));
        return dot < 0 ? className : className.substring(dot + 1);
    }

    public boolean publishesOn(String channel) { return has(IntentFilterDecl.Role.PUBLISHER, channel); }

    public boolean subscribesTo(String channel) { return has(IntentFilterDecl.Role.SUBSCRIBER, channel); }

    /**
     * A receiver that subscribes to no channel: the application's AlarmManager may deliver to it
     * (its callbacks then run only on the alarm handler's thread; a receiver fed by channels runs
     * them on its own thread).
     */
    public boolean canBeAlarmTarget() {
        if (kind != ComponentKind.RECEIVER) {
            return false;
        }
        for (IntentFilterDecl f : intentFilters) {
            if (f.role() == IntentFilterDecl.Role.SUBSCRIBER) {
                return false;
            }
        }
        return true;
    }

    /** Messages per release this component declared for the channel in that role (0 if none). */
    public int count(IntentFilterDecl.Role role, String channel) {
        int n = 0;
        for (IntentFilterDecl f : intentFilters) {
            if (f.role() == role && f.channels().contains(channel)) {
                n += f.count();
            }
        }
        return n;
    }

    private boolean has(IntentFilterDecl.Role role, String channel) { return count(role, channel) > 0; }
}
