package org.rtdroid.runtime.os;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * Linux real-time system calls through the FFM API (Java 22+; no JNI).
 *
 * <p>Every binding is a static final {@link MethodHandle}, and every buffer a call needs (a
 * {@code timespec}, a {@code sched_param}, a {@code cpu_set_t}, the errno capture area) is a
 * per-thread scratch segment allocated once on the thread's first call. So after that first call,
 * the calls on a real-time path ({@link #monotonicNanos}, {@link #sleepUntilNanos}) allocate
 * nothing on the Java heap.
 *
 * <p>Calls that can fail for lack of privileges return {@code 0} or an errno value (never throw),
 * because the caller decides whether the failure degrades or aborts (see {@link RealtimeThreads}).
 *
 * <p>The JVM must run with {@code --enable-native-access=ALL-UNNAMED}; without it Java 25 prints a
 * warning on first use (and future JDKs will refuse).
 */
public final class Linux {
    public static final int CLOCK_MONOTONIC = 1;
    public static final int CLOCK_THREAD_CPUTIME_ID = 3;
    public static final int TIMER_ABSTIME = 1;
    public static final int SCHED_OTHER = 0;
    public static final int SCHED_FIFO = 1;
    public static final int SCHED_RR = 2;
    /** Threads a real-time thread creates start SCHED_OTHER instead of inheriting its priority. */
    public static final int SCHED_RESET_ON_FORK = 0x40000000;
    public static final int MCL_CURRENT = 1;
    public static final int MCL_FUTURE = 2;
    public static final int PR_SET_TIMERSLACK = 29;
    public static final int PR_GET_TIMERSLACK = 30;
    public static final int RLIMIT_RTPRIO = 14;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final int CPUSET_BYTES = CpuSet.WORDS * Long.BYTES;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    static final long ERRNO_OFFSET =
            CAPTURE_LAYOUT.byteOffset(MemoryLayout.PathElement.groupElement("errno"));
    static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");

    // vDSO, never blocks: critical (no thread-state transition) is safe and cheaper.
    private static final MethodHandle CLOCK_GETTIME = downcall("clock_gettime",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS), Linker.Option.critical(false));
    // Blocks for up to a period: must NOT be critical, or a safepoint would wait on a sleeping thread.
    private static final MethodHandle CLOCK_NANOSLEEP = downcall("clock_nanosleep",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    // Changed on real-time paths (a pooled handler's thread taking the handler's priority, the
    // benchmark's RT looper following its most urgent message), so called without errno capture: JDK 25 allocates
    // ~40 bytes per call that captures call state until the JIT compiles the caller with escape
    // analysis, which a path run a few hundred times may never be. A failed call (rc -1) is repeated
    // with capture to learn its errno: the call is idempotent and fails the same way again.
    private static final MethodHandle SCHED_SETSCHEDULER = downcall("sched_setscheduler",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
    private static final MethodHandle SCHED_SETSCHEDULER_ERRNO = downcall("sched_setscheduler",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS), ERRNO);
    private static final MethodHandle SCHED_GETSCHEDULER = downcall("sched_getscheduler",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT), ERRNO);
    private static final MethodHandle SCHED_GETPARAM = downcall("sched_getparam",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS), ERRNO);
    private static final MethodHandle SCHED_GET_PRIORITY_MIN = downcall("sched_get_priority_min",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle SCHED_GET_PRIORITY_MAX = downcall("sched_get_priority_max",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    // Also on a real-time path (a pooled handler's thread moving to the handler's CPU): as above.
    private static final MethodHandle SCHED_SETAFFINITY = downcall("sched_setaffinity",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS));
    private static final MethodHandle SCHED_SETAFFINITY_ERRNO = downcall("sched_setaffinity",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS), ERRNO);
    private static final MethodHandle SCHED_GETAFFINITY = downcall("sched_getaffinity",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS), ERRNO);
    private static final MethodHandle MLOCKALL = downcall("mlockall",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT), ERRNO);
    // int prctl(int option, ...): the unsigned long argument is variadic.
    private static final MethodHandle PRCTL_1 = downcall("prctl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG), ERRNO, Linker.Option.firstVariadicArg(1));
    private static final MethodHandle GETRLIMIT = downcall("getrlimit",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS), ERRNO);
    private static final MethodHandle GETTID = downcall("gettid", FunctionDescriptor.of(JAVA_INT));
    private static final MethodHandle STRERROR = downcall("strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));

    /** Per-thread native buffers, allocated on the thread's first call and reused after. */
    private static final class Scratch {
        final MemorySegment timespec;
        final MemorySegment capture;
        final MemorySegment param;
        final MemorySegment cpuset;

        Scratch() {
            Arena arena = Arena.ofAuto(); // freed when the thread (and so this object) is gone
            timespec = arena.allocate(16, 8);
            capture = arena.allocate(CAPTURE_LAYOUT);
            param = arena.allocate(16, 8);
            cpuset = arena.allocate(CPUSET_BYTES, 8);
        }
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private Linux() {}

    /** A libc function's handle (also {@link PosixIo}'s). */
    static MethodHandle downcall(String name, FunctionDescriptor fd, Linker.Option... options) {
        MemorySegment symbol = LIBC.find(name).orElseThrow(
                () -> new UnsatisfiedLinkError("libc has no symbol " + name + " (rtdroid needs Linux with glibc >= 2.30)"));
        return LINKER.downcallHandle(symbol, fd, options);
    }

    static RuntimeException unexpected(String call, Throwable t) {
        return new IllegalStateException("FFM call " + call + " failed to link or run", t);
    }

    // ---------------------------------------------------------------- clock

    /** clock_gettime(CLOCK_MONOTONIC) in nanoseconds. Allocation-free after the thread's first call. */
    public static long monotonicNanos() {
        return clockNanos(CLOCK_MONOTONIC); // -1 cannot happen for CLOCK_MONOTONIC on Linux
    }

    /**
     * clock_gettime(CLOCK_THREAD_CPUTIME_ID): CPU time the calling thread has consumed, in
     * nanoseconds (spinning counts, sleeping does not). Allocation-free after the thread's first call.
     */
    public static long threadCpuNanos() {
        return clockNanos(CLOCK_THREAD_CPUTIME_ID);
    }

    /**
     * CPU time another thread of this process has consumed, in nanoseconds (its CPU-time clock,
     * the kernel's MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)), or -1 if this process has no such
     * thread (the kernel refuses the thread clocks of other processes).
     * Allocation-free after the calling thread's first call.
     */
    public static long threadCpuNanosOf(int tid) {
        return clockNanos((~tid << 3) | 6);
    }

    /** clock_gettime(clockId) in nanoseconds, or -1 (never a valid time) if the call failed. */
    private static long clockNanos(int clockId) {
        MemorySegment ts = SCRATCH.get().timespec;
        int rc;
        try {
            rc = (int) CLOCK_GETTIME.invokeExact(clockId, ts);
        } catch (Throwable t) {
            throw unexpected("clock_gettime", t);
        }
        if (rc != 0) {
            return -1;
        }
        return ts.get(JAVA_LONG, 0) * NANOS_PER_SECOND + ts.get(JAVA_LONG, 8);
    }

    /**
     * clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME) until {@code deadlineNanos} (same time base as
     * {@link #monotonicNanos}, which on Linux is also {@link System#nanoTime}). Resumes after signals
     * (EINTR), since an absolute deadline does not drift. Allocation-free after the first call.
     *
     * @return 0, or the errno value clock_nanosleep returned (EINVAL for a negative deadline)
     */
    public static int sleepUntilNanos(long deadlineNanos) {
        MemorySegment ts = SCRATCH.get().timespec;
        ts.set(JAVA_LONG, 0, deadlineNanos / NANOS_PER_SECOND);
        ts.set(JAVA_LONG, 8, deadlineNanos % NANOS_PER_SECOND);
        int rc;
        do {
            try {
                rc = (int) CLOCK_NANOSLEEP.invokeExact(CLOCK_MONOTONIC, TIMER_ABSTIME, ts, MemorySegment.NULL);
            } catch (Throwable t) {
                throw unexpected("clock_nanosleep", t);
            }
        } while (rc == Errno.EINTR);
        return rc;
    }

    // ---------------------------------------------------------------- scheduling

    private static int errno(Scratch s) {
        return s.capture.get(JAVA_INT, ERRNO_OFFSET);
    }

    /**
     * sched_setscheduler(0 = calling thread, policy, {priority}).
     *
     * @param policy {@link #SCHED_FIFO}, {@link #SCHED_RR} or {@link #SCHED_OTHER}, optionally or-ed
     *     with {@link #SCHED_RESET_ON_FORK}
     * @return 0 or errno (EPERM without CAP_SYS_NICE and with RLIMIT_RTPRIO below the priority)
     */
    public static int setScheduler(int policy, int priority) {
        return setSchedulerOf(0, policy, priority);
    }

    /**
     * sched_setscheduler for another thread of this process, by kernel thread id (see {@link #gettid});
     * used to boost a thread to the priority of work queued for it (the benchmark's RT looper).
     *
     * @return 0 or errno
     */
    public static int setSchedulerOf(int tid, int policy, int priority) {
        Scratch s = SCRATCH.get();
        s.param.set(JAVA_INT, 0, priority);
        try {
            if ((int) SCHED_SETSCHEDULER.invokeExact(tid, policy, s.param) == 0) {
                return 0;
            }
            int rc = (int) SCHED_SETSCHEDULER_ERRNO.invokeExact(s.capture, tid, policy, s.param);
            return rc == 0 ? 0 : errno(s);
        } catch (Throwable t) {
            throw unexpected("sched_setscheduler", t);
        }
    }

    /** @return the calling thread's policy (SCHED_RESET_ON_FORK masked off) */
    public static int currentPolicy() {
        int policy = policyOf(0); // tid 0: the calling thread
        if (policy < 0) {
            throw new NativeCallException("sched_getscheduler", -policy);
        }
        return policy;
    }

    /**
     * sched_getscheduler(tid) for a thread of this process (SCHED_RESET_ON_FORK masked off), or the
     * negated errno (-ESRCH once the thread has ended). Not for real-time paths: reports only.
     */
    public static int policyOf(int tid) {
        Scratch s = SCRATCH.get();
        try {
            int rc = (int) SCHED_GETSCHEDULER.invokeExact(s.capture, tid);
            return rc < 0 ? -errno(s) : rc & ~SCHED_RESET_ON_FORK;
        } catch (Throwable t) {
            throw unexpected("sched_getscheduler", t);
        }
    }

    /** @return the calling thread's static (real-time) priority; 0 under SCHED_OTHER */
    public static int currentPriority() {
        Scratch s = SCRATCH.get();
        try {
            int rc = (int) SCHED_GETPARAM.invokeExact(s.capture, 0, s.param);
            if (rc != 0) {
                throw new NativeCallException("sched_getparam", errno(s));
            }
            return s.param.get(JAVA_INT, 0);
        } catch (NativeCallException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected("sched_getparam", t);
        }
    }

    /**
     * sched_getparam(tid): the static (real-time) priority of a thread of this process as the
     * kernel holds it (0 under SCHED_OTHER), or the negated errno (-ESRCH once it has ended).
     * Reports and tests: what a thread runs at, read from the kernel rather than from a field.
     */
    public static int priorityOf(int tid) {
        Scratch s = SCRATCH.get();
        try {
            int rc = (int) SCHED_GETPARAM.invokeExact(s.capture, tid, s.param);
            return rc != 0 ? -errno(s) : s.param.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw unexpected("sched_getparam", t);
        }
    }

    public static int priorityMin(int policy) {
        try {
            return (int) SCHED_GET_PRIORITY_MIN.invokeExact(policy);
        } catch (Throwable t) {
            throw unexpected("sched_get_priority_min", t);
        }
    }

    public static int priorityMax(int policy) {
        try {
            return (int) SCHED_GET_PRIORITY_MAX.invokeExact(policy);
        } catch (Throwable t) {
            throw unexpected("sched_get_priority_max", t);
        }
    }

    /**
     * sched_setaffinity(0 = calling thread): on Linux a pid of 0 names the calling thread only,
     * which is what pthread_setaffinity_np does for pthread_self().
     *
     * @return 0 or errno (EINVAL when no CPU of the set is online or allowed by the cpuset cgroup)
     */
    public static int setAffinity(CpuSet cpus) {
        Scratch s = SCRATCH.get();
        for (int i = 0; i < CpuSet.WORDS; i++) {
            s.cpuset.set(JAVA_LONG, (long) i * Long.BYTES, cpus.word(i));
        }
        try {
            if ((int) SCHED_SETAFFINITY.invokeExact(0, (long) CPUSET_BYTES, s.cpuset) == 0) {
                return 0;
            }
            int rc = (int) SCHED_SETAFFINITY_ERRNO.invokeExact(s.capture, 0, (long) CPUSET_BYTES, s.cpuset);
            return rc == 0 ? 0 : errno(s);
        } catch (Throwable t) {
            throw unexpected("sched_setaffinity", t);
        }
    }

    /** @return the CPUs the calling thread may run on */
    public static CpuSet currentAffinity() {
        return affinityOf(0);
    }

    /**
     * sched_getaffinity(tid): the CPUs the kernel lets thread {@code tid} of any process run on (0:
     * the calling thread), read back from the kernel.
     *
     * @throws NativeCallException ESRCH when no such thread exists
     */
    public static CpuSet affinityOf(int tid) {
        Scratch s = SCRATCH.get();
        try {
            int rc = (int) SCHED_GETAFFINITY.invokeExact(s.capture, tid, (long) CPUSET_BYTES, s.cpuset);
            if (rc != 0) {
                throw new NativeCallException("sched_getaffinity", errno(s));
            }
        } catch (NativeCallException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected("sched_getaffinity", t);
        }
        long[] words = new long[CpuSet.WORDS];
        for (int i = 0; i < CpuSet.WORDS; i++) {
            words[i] = s.cpuset.get(JAVA_LONG, (long) i * Long.BYTES);
        }
        return CpuSet.fromWords(words);
    }

    // ---------------------------------------------------------------- memory, slack, limits

    /** mlockall(flags), e.g. MCL_CURRENT | MCL_FUTURE. @return 0 or errno (EPERM, ENOMEM) */
    public static int lockAll(int flags) {
        Scratch s = SCRATCH.get();
        try {
            int rc = (int) MLOCKALL.invokeExact(s.capture, flags);
            return rc == 0 ? 0 : errno(s);
        } catch (Throwable t) {
            throw unexpected("mlockall", t);
        }
    }

    /** prctl(PR_SET_TIMERSLACK, nanos) for the calling thread. @return 0 or errno */
    public static int setTimerSlackNanos(long nanos) {
        Scratch s = SCRATCH.get();
        try {
            int rc = (int) PRCTL_1.invokeExact(s.capture, PR_SET_TIMERSLACK, nanos);
            return rc == 0 ? 0 : errno(s);
        } catch (Throwable t) {
            throw unexpected("prctl(PR_SET_TIMERSLACK)", t);
        }
    }

    /** @return the calling thread's timer slack in nanoseconds (prctl(PR_GET_TIMERSLACK)) */
    public static long timerSlackNanos() {
        Scratch s = SCRATCH.get();
        try {
            int rc = (int) PRCTL_1.invokeExact(s.capture, PR_GET_TIMERSLACK, 0L);
            if (rc < 0) {
                throw new NativeCallException("prctl(PR_GET_TIMERSLACK)", errno(s));
            }
            return rc;
        } catch (NativeCallException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected("prctl(PR_GET_TIMERSLACK)", t);
        }
    }

    /** @return the soft RLIMIT_RTPRIO (highest SCHED_FIFO priority allowed without CAP_SYS_NICE) */
    public static long rtprioSoftLimit() {
        Scratch s = SCRATCH.get();
        try {
            int rc = (int) GETRLIMIT.invokeExact(s.capture, RLIMIT_RTPRIO, s.param);
            if (rc != 0) {
                throw new NativeCallException("getrlimit(RLIMIT_RTPRIO)", errno(s));
            }
            return s.param.get(JAVA_LONG, 0);
        } catch (NativeCallException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected("getrlimit", t);
        }
    }

    /** @return the kernel thread id of the calling thread (what ps -L and chrt -p show) */
    public static int gettid() {
        try {
            return (int) GETTID.invokeExact();
        } catch (Throwable t) {
            throw unexpected("gettid", t);
        }
    }

    /** libc strerror(3); allocates a String (use only off the real-time path). */
    static String strerror(int errno) {
        try {
            MemorySegment p = (MemorySegment) STRERROR.invokeExact(errno);
            return p.equals(MemorySegment.NULL) ? "Unknown error " + errno : p.reinterpret(256).getString(0);
        } catch (Throwable t) {
            throw unexpected("strerror", t);
        }
    }
}
