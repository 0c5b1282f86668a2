package org.rtdroid.runtime.os;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * A priority-inheritance mutex: a glibc {@code pthread_mutex_t} with {@code PTHREAD_PRIO_INHERIT}
 * (and {@code PTHREAD_MUTEX_ERRORCHECK}), reached through the FFM API.
 *
 * <p>Why not a JVM monitor or {@code ReentrantLock}: when a high-priority thread blocks on either,
 * the holder keeps its own (lower) priority, so any middle-priority thread on the same CPU delays
 * the high one for as long as it runs (unbounded priority inversion). A PI mutex is a PI futex: the
 * kernel boosts the holder to the highest waiter's priority until it unlocks. That is what
 * {@code <order>priority-inheritance</order>} promises; the channels of this runtime lock with it.
 *
 * <p>Memory: the mutex lives off-heap, in one segment allocated (cache-line aligned) at
 * construction and freed by the GC when the mutex is unreachable ({@link Arena#ofAuto}); an
 * unlocked PI futex holds no kernel state, so there is nothing else to release. Sizes on x86_64
 * glibc: {@code pthread_mutex_t} 40 B, {@code pthread_mutexattr_t} 4 B; we reserve 64 B and 16 B
 * (also enough for aarch64 glibc's 48 B and for musl).
 *
 * <p>Real-time paths: {@link #lock} and {@link #unlock} allocate nothing. {@code lock} first tries
 * {@code pthread_mutex_trylock} as a critical (no thread-state transition) downcall, which for an
 * uncontended PI mutex is one compare-and-swap in user space; only when that returns EBUSY does it
 * call the blocking {@code pthread_mutex_lock}, which must not be critical (a thread blocked in a
 * critical call would hold up every safepoint). {@code unlock} is critical: it never blocks (with
 * waiters it is one {@code FUTEX_UNLOCK_PI} system call that hands the lock over).
 *
 * <p>Not reentrant (error-checking): locking it again from the holder throws
 * {@link NativeCallException} with EDEADLK instead of deadlocking; unlocking it from a thread that
 * does not hold it throws with EPERM. Unlike a monitor it is not released when an exception leaves
 * the section: always {@code lock(); try { ... } finally { unlock(); }}. The owner is the OS
 * thread, so use it from platform threads (a virtual thread may change carrier while it holds it).
 */
public final class PiMutex {
    /** glibc and musl: {@code PTHREAD_PRIO_INHERIT}. */
    static final int PTHREAD_PRIO_INHERIT = 1;
    /** glibc and musl: {@code PTHREAD_MUTEX_ERRORCHECK}. */
    static final int PTHREAD_MUTEX_ERRORCHECK = 2;
    /** Room for the mutex (40 B on x86_64 glibc), a cache line so two mutexes never share one. */
    static final long MUTEX_BYTES = 64;
    /** Room for a mutexattr or condattr (4 B on glibc). */
    static final long ATTR_BYTES = 16;

    private static final FunctionDescriptor INT_OF_PTR = FunctionDescriptor.of(JAVA_INT, ADDRESS);
    private static final FunctionDescriptor INT_OF_PTR_INT = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT);

    private static final MethodHandle MUTEXATTR_INIT = Linux.downcall("pthread_mutexattr_init", INT_OF_PTR);
    private static final MethodHandle MUTEXATTR_SETPROTOCOL = Linux.downcall("pthread_mutexattr_setprotocol", INT_OF_PTR_INT);
    private static final MethodHandle MUTEXATTR_GETPROTOCOL = Linux.downcall("pthread_mutexattr_getprotocol",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle MUTEXATTR_SETTYPE = Linux.downcall("pthread_mutexattr_settype", INT_OF_PTR_INT);
    private static final MethodHandle MUTEXATTR_DESTROY = Linux.downcall("pthread_mutexattr_destroy", INT_OF_PTR);
    private static final MethodHandle MUTEX_INIT = Linux.downcall("pthread_mutex_init",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    // Blocks: must let safepoints proceed while this thread waits in the kernel.
    private static final MethodHandle MUTEX_LOCK = Linux.downcall("pthread_mutex_lock", INT_OF_PTR);
    // Never block: critical saves the Java -> native -> Java transition on the hot path.
    private static final MethodHandle MUTEX_TRYLOCK = Linux.downcall("pthread_mutex_trylock", INT_OF_PTR,
            Linker.Option.critical(false));
    private static final MethodHandle MUTEX_UNLOCK = Linux.downcall("pthread_mutex_unlock", INT_OF_PTR,
            Linker.Option.critical(false));

    private final String name;
    /** The pthread_mutex_t; package-private for {@link PiCondition}. */
    final MemorySegment mutex;

    /**
     * @param name what the mutex guards (e.g. the channel name), for error messages
     * @throws NativeCallException if glibc refuses to make a priority-inheritance mutex (ENOTSUP
     *     where the kernel has no PI futexes)
     */
    public PiMutex(String name) {
        this.name = name;
        MemorySegment block = Arena.ofAuto().allocate(MUTEX_BYTES + ATTR_BYTES, 64);
        mutex = block.asSlice(0, MUTEX_BYTES);
        MemorySegment attr = block.asSlice(MUTEX_BYTES, ATTR_BYTES);
        check("pthread_mutexattr_init", call(MUTEXATTR_INIT, attr));
        try {
            check("pthread_mutexattr_setprotocol(PTHREAD_PRIO_INHERIT)",
                    call(MUTEXATTR_SETPROTOCOL, attr, PTHREAD_PRIO_INHERIT));
            check("pthread_mutexattr_settype(PTHREAD_MUTEX_ERRORCHECK)",
                    call(MUTEXATTR_SETTYPE, attr, PTHREAD_MUTEX_ERRORCHECK));
            check("pthread_mutex_init", call(MUTEX_INIT, mutex, attr));
        } finally {
            call(MUTEXATTR_DESTROY, attr);
        }
    }

    public String name() { return name; }

    /** Blocks until the calling thread holds the mutex, boosting the holder meanwhile. Allocation-free. */
    public void lock() {
        int rc;
        try {
            rc = (int) MUTEX_TRYLOCK.invokeExact(mutex);
            if (rc == Errno.EBUSY) {
                rc = (int) MUTEX_LOCK.invokeExact(mutex);
                if (rc != 0) {
                    throw failure("pthread_mutex_lock", rc);
                }
            } else if (rc != 0) {
                throw failure("pthread_mutex_trylock", rc);
            }
        } catch (NativeCallException e) {
            throw e;
        } catch (Throwable t) {
            throw Linux.unexpected("pthread_mutex_lock", t);
        }
    }

    /** @return true if the calling thread now holds the mutex, false if another thread does */
    public boolean tryLock() {
        int rc;
        try {
            rc = (int) MUTEX_TRYLOCK.invokeExact(mutex);
        } catch (Throwable t) {
            throw Linux.unexpected("pthread_mutex_trylock", t);
        }
        if (rc == Errno.EBUSY) {
            return false;
        }
        if (rc != 0) {
            throw failure("pthread_mutex_trylock", rc);
        }
        return true;
    }

    /** Releases the mutex (to the highest-priority waiter, if any). Allocation-free. */
    public void unlock() {
        int rc;
        try {
            rc = (int) MUTEX_UNLOCK.invokeExact(mutex);
        } catch (Throwable t) {
            throw Linux.unexpected("pthread_mutex_unlock", t);
        }
        if (rc != 0) {
            throw failure("pthread_mutex_unlock", rc);
        }
    }

    /** A condition variable (CLOCK_MONOTONIC) to wait on while holding this mutex. */
    public PiCondition newCondition() {
        return new PiCondition(this);
    }

    /** @return the protocol glibc reports for a fresh PI attribute (1 = PTHREAD_PRIO_INHERIT); for tests */
    static int protocolOfFreshAttribute() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ATTR_BYTES, 16);
            MemorySegment out = arena.allocate(JAVA_INT);
            check("pthread_mutexattr_init", call(MUTEXATTR_INIT, attr));
            check("pthread_mutexattr_setprotocol", call(MUTEXATTR_SETPROTOCOL, attr, PTHREAD_PRIO_INHERIT));
            int rc = (int) MUTEXATTR_GETPROTOCOL.invokeExact(attr, out);
            check("pthread_mutexattr_getprotocol", rc);
            call(MUTEXATTR_DESTROY, attr);
            return out.get(JAVA_INT, 0);
        } catch (NativeCallException e) {
            throw e;
        } catch (Throwable t) {
            throw Linux.unexpected("pthread_mutexattr_getprotocol", t);
        }
    }

    @Override
    public String toString() {
        return "PiMutex[" + name + "]";
    }

    // ---------------------------------------------------------------- plumbing (set-up paths)

    NativeCallException failure(String call, int rc) {
        // Error path only: the message names the call, the errno and what the mutex guards.
        return new NativeCallException(call + " on " + name, rc);
    }

    static void check(String call, int rc) {
        if (rc != 0) {
            throw new NativeCallException(call, rc);
        }
    }

    static int call(MethodHandle h, MemorySegment a) {
        try {
            return (int) h.invokeExact(a);
        } catch (Throwable t) {
            throw Linux.unexpected("pthread call", t);
        }
    }

    static int call(MethodHandle h, MemorySegment a, int b) {
        try {
            return (int) h.invokeExact(a, b);
        } catch (Throwable t) {
            throw Linux.unexpected("pthread call", t);
        }
    }

    static int call(MethodHandle h, MemorySegment a, MemorySegment b) {
        try {
            return (int) h.invokeExact(a, b);
        } catch (Throwable t) {
            throw Linux.unexpected("pthread call", t);
        }
    }
}
