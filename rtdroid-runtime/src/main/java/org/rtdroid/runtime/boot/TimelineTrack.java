package org.rtdroid.runtime.boot;

import org.rtdroid.runtime.reflection.PastTimeline;

/**
 * One past timeline of a deployed application, as a trace shows it: a reflective service's engine
 * (its actions), a periodic task (its releases) or a component (its callbacks), with the kernel
 * thread that ran the jobs.
 *
 * @param name {@code app/Component.engine}, {@code app/Component/task} or {@code app/Component}
 * @param kind {@link #ENGINE}, {@link #TASK} or {@link #CALLBACKS}
 */
public record TimelineTrack(String name, String kind, int tid, PastTimeline past) {
    public static final String ENGINE = "engine";
    public static final String TASK = "task";
    public static final String CALLBACKS = "callbacks";
}
