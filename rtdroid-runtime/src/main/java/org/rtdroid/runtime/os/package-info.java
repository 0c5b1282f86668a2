/**
 * Linux real-time primitives through the FFM API (no JNI), allocation-free on the real-time path.
 *
 * <ul>
 *   <li>{@link org.rtdroid.runtime.os.Linux}: {@code monotonicNanos()} (clock_gettime),
 *       {@code sleepUntilNanos(deadline)} (clock_nanosleep TIMER_ABSTIME), {@code setScheduler},
 *       {@code setSchedulerOf(tid, ...)}, {@code priorityMin/Max}, {@code setAffinity} /
 *       {@code currentAffinity}, {@code lockAll} (mlockall), {@code setTimerSlackNanos} (prctl),
 *       {@code rtprioSoftLimit}, {@code gettid}. Failures return errno values, named by
 *       {@link org.rtdroid.runtime.os.Errno}.</li>
 *   <li>{@link org.rtdroid.runtime.os.RealtimeThreads}: apply a
 *       {@link org.rtdroid.runtime.os.RealtimePolicy} (SCHED_FIFO priority, CPU set, timer slack) to
 *       the current thread or start a thread with it, {@code lockMemory()}, and read back what was
 *       applied ({@link org.rtdroid.runtime.os.AppliedPolicy}). Where the process is not
 *       permitted, threads still run, and one warning per degraded capability is printed once.</li>
 *   <li>{@link org.rtdroid.runtime.os.PiMutex} / {@link org.rtdroid.runtime.os.PiCondition}: a
 *       glibc {@code pthread_mutex_t} with {@code PTHREAD_PRIO_INHERIT} (error-checking) and a
 *       CLOCK_MONOTONIC {@code pthread_cond_t}, off-heap, allocation-free to lock, unlock, wait and
 *       signal; errors are {@link org.rtdroid.runtime.os.NativeCallException}s naming the errno.
 *       The channels lock with it.</li>
 * </ul>
 *
 * The JVM needs {@code --enable-native-access=ALL-UNNAMED}.
 */
package org.rtdroid.runtime.os;
