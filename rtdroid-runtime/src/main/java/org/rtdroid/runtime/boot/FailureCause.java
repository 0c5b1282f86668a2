package org.rtdroid.runtime.boot;

import java.util.ArrayList;
import java.util.List;

/**
 * Why a component failed: what {@code rtdroid rt services} shows next to FAILED.
 *
 * @param exceptionClass the failure's class name ({@code java.lang.IllegalStateException})
 * @param message its message ("" when it has none)
 * @param task the periodic task whose release failed, or null (the component's own callback, or start-up)
 * @param release the release of {@code task} (or the callback of the component) at which it failed,
 *     counting from 1; 0 = during start-up (onCreate / onStartCommand)
 * @param frames the first {@link #MAX_FRAMES} frames of its stack, innermost first
 */
public record FailureCause(String exceptionClass, String message, String task, long release, List<String> frames) {
    /** Stack frames kept: enough to find the line that threw, small enough for one status answer. */
    public static final int MAX_FRAMES = 5;

    public FailureCause {
        frames = List.copyOf(frames);
    }

    /** Built on the management path from what the failing thread recorded (it allocates nothing itself). */
    public static FailureCause of(Throwable t, String task, long release) {
        List<String> frames = new ArrayList<>();
        StackTraceElement[] stack = t.getStackTrace();
        for (int i = 0; i < stack.length && i < MAX_FRAMES; i++) {
            frames.add(stack[i].toString());
        }
        String message = t.getMessage();
        return new FailureCause(t.getClass().getName(), message == null ? "" : message, task, release, frames);
    }

    /** One line: {@code IllegalStateException: boom (task tick, release 42) at Foo.bar(Foo.java:12)}. */
    public String summary() {
        String where = release == 0 ? "start-up" : (task == null ? "callback " : "task " + task + ", release ") + release;
        return exceptionClass + (message.isEmpty() ? "" : ": " + message) + " (" + where + ")"
                + (frames.isEmpty() ? "" : " at " + frames.get(0));
    }
}
