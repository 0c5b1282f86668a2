package org.rtdroid.runtime.os;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * A condition variable bound to one {@link PiMutex}: a glibc {@code pthread_cond_t} whose timed
 * waits use CLOCK_MONOTONIC ({@code pthread_condattr_setclock}), the same time base as
 * {@link Linux#monotonicNanos} and {@link System#nanoTime}, so a deadline does not move when the
 * wall clock is set.
 *
 * <p>Waking re-acquires the PI mutex (so the re-acquisition inherits priority); the wait itself
 * does not boost whoever is expected to signal (no condition variable can know who that is).
 * Off-heap memory (64 B for the 48 B {@code pthread_cond_t} plus the attribute) is allocated once
 * here; {@link #await}, {@link #awaitUntil}, {@link #signal} and {@link #signalAll} allocate
 * nothing (the deadline's {@code timespec} is a per-thread buffer made on the thread's first timed wait).
 */
public final class PiCondition {
    static final long COND_BYTES = 64;

    private static final FunctionDescriptor INT_OF_PTR = FunctionDescriptor.of(JAVA_INT, ADDRESS);
    private static final MethodHandle CONDATTR_INIT = Linux.downcall("pthread_condattr_init", INT_OF_PTR);
    private static final MethodHandle CONDATTR_SETCLOCK = Linux.downcall("pthread_condattr_setclock",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle CONDATTR_DESTROY = Linux.downcall("pthread_condattr_destroy", INT_OF_PTR);
    private static final MethodHandle COND_INIT = Linux.downcall("pthread_cond_init",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    // Block: not critical.
    private static final MethodHandle COND_WAIT = Linux.downcall("pthread_cond_wait",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle COND_TIMEDWAIT = Linux.downcall("pthread_cond_timedwait",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    // At most one futex wake: never block.
    private static final MethodHandle COND_SIGNAL = Linux.downcall("pthread_cond_signal", INT_OF_PTR,
            Linker.Option.critical(false));
    private static final MethodHandle COND_BROADCAST = Linux.downcall("pthread_cond_broadcast", INT_OF_PTR,
            Linker.Option.critical(false));

    private static final ThreadLocal<MemorySegment> TIMESPEC =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(16, 8));

    private final PiMutex mutex;
    private final MemorySegment cond;

    PiCondition(PiMutex mutex) {
        this.mutex = mutex;
        MemorySegment block = Arena.ofAuto().allocate(COND_BYTES + PiMutex.ATTR_BYTES, 64);
        cond = block.asSlice(0, COND_BYTES);
        MemorySegment attr = block.asSlice(COND_BYTES, PiMutex.ATTR_BYTES);
        PiMutex.check("pthread_condattr_init", PiMutex.call(CONDATTR_INIT, attr));
        try {
            PiMutex.check("pthread_condattr_setclock(CLOCK_MONOTONIC)",
                    PiMutex.call(CONDATTR_SETCLOCK, attr, Linux.CLOCK_MONOTONIC));
            PiMutex.check("pthread_cond_init", PiMutex.call(COND_INIT, cond, attr));
        } finally {
            PiMutex.call(CONDATTR_DESTROY, attr);
        }
    }

    /** Releases the mutex, waits for a signal (or a spurious wake-up), re-acquires it. Caller holds the mutex. */
    public void await() {
        int rc;
        try {
            rc = (int) COND_WAIT.invokeExact(cond, mutex.mutex);
        } catch (Throwable t) {
            throw Linux.unexpected("pthread_cond_wait", t);
        }
        if (rc != 0) {
            throw mutex.failure("pthread_cond_wait", rc);
        }
    }

    /**
     * Like {@link #await} but gives up at {@code deadlineNanos} (CLOCK_MONOTONIC, as
     * {@link System#nanoTime}). Caller holds the mutex, and holds it again on return.
     *
     * @return false if the deadline passed, true if woken (possibly spuriously: re-check the predicate)
     */
    public boolean awaitUntil(long deadlineNanos) {
        MemorySegment ts = TIMESPEC.get();
        long d = Math.max(0, deadlineNanos);
        ts.set(JAVA_LONG, 0, d / 1_000_000_000L);
        ts.set(JAVA_LONG, 8, d % 1_000_000_000L);
        int rc;
        try {
            rc = (int) COND_TIMEDWAIT.invokeExact(cond, mutex.mutex, ts);
        } catch (Throwable t) {
            throw Linux.unexpected("pthread_cond_timedwait", t);
        }
        if (rc == Errno.ETIMEDOUT) {
            return false;
        }
        if (rc != 0) {
            throw mutex.failure("pthread_cond_timedwait", rc);
        }
        return true;
    }

    /** Wakes at least one waiter (POSIX does not promise which). */
    public void signal() {
        int rc;
        try {
            rc = (int) COND_SIGNAL.invokeExact(cond);
        } catch (Throwable t) {
            throw Linux.unexpected("pthread_cond_signal", t);
        }
        if (rc != 0) {
            throw mutex.failure("pthread_cond_signal", rc);
        }
    }

    /** Wakes every waiter. */
    public void signalAll() {
        int rc;
        try {
            rc = (int) COND_BROADCAST.invokeExact(cond);
        } catch (Throwable t) {
            throw Linux.unexpected("pthread_cond_broadcast", t);
        }
        if (rc != 0) {
            throw mutex.failure("pthread_cond_broadcast", rc);
        }
    }
}
