package org.rtdroid.runtime.os;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;

/**
 * File-descriptor system calls through FFM, in the style of {@link Linux}: {@code open},
 * {@code close}, {@code read}, {@code write}, {@code poll} and {@code ioctl}, for the sensor
 * path's input devices ({@code /dev/input/event*}, {@code /dev/uinput}). Buffers are the
 * caller's pre-allocated native segments and the errno capture area is per thread, so
 * {@link #read}, {@link #write} and {@link #poll} allocate nothing on the heap after a thread's
 * first call. Every call returns its result or a negated errno; none throws for an errno.
 */
public final class PosixIo {
    public static final int O_RDONLY = 0;
    public static final int O_WRONLY = 1;
    public static final int O_RDWR = 2;
    public static final int O_NONBLOCK = 0x800;
    public static final int O_CLOEXEC = 0x80000;
    public static final short POLLIN = 0x1;
    public static final short POLLERR = 0x8;
    public static final short POLLHUP = 0x10;
    public static final short POLLNVAL = 0x20;
    /** struct pollfd: int fd, short events, short revents. */
    public static final int POLLFD_BYTES = 8;
    public static final int ENOENT = 2;
    public static final int ENXIO = 6;
    public static final int ENODEV = 19;
    public static final int ENOTTY = 25;

    private static final StructLayout CAPTURE_LAYOUT = Linux.CAPTURE_LAYOUT;
    private static final long ERRNO_OFFSET = Linux.ERRNO_OFFSET;
    private static final Linker.Option ERRNO = Linux.ERRNO;

    // open(2) is variadic (mode); with no O_CREAT the mode is not read, but pass it as the ABI wants.
    private static final MethodHandle OPEN = downcall("open",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), ERRNO, Linker.Option.firstVariadicArg(2));
    private static final MethodHandle CLOSE = downcall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT), ERRNO);
    // The buffer goes as its raw address (a pointer is an INTEGER-class argument like a long on
    // the Linux ABIs): a slice at an offset would be a new MemorySegment object per call.
    private static final MethodHandle READ = downcall("read",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG), ERRNO);
    private static final MethodHandle WRITE = downcall("write",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG), ERRNO);
    private static final MethodHandle POLL = downcall("poll",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), ERRNO);
    // The real-time path's variants capture no errno: the JDK checks a capture segment by slicing
    // it, an object C2 does not always scalar-replace (seen: 2-5 heap bytes per frame read).
    private static final MethodHandle READ_NO_ERRNO = downcall("read",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle PREAD_NO_ERRNO = downcall("pread",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle WRITE_NO_ERRNO = downcall("write",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle POLL_NO_ERRNO = downcall("poll",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
    // ioctl(int, unsigned long, ...): the third argument is variadic, a pointer or an integer.
    private static final MethodHandle IOCTL_PTR = downcall("ioctl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS), ERRNO, Linker.Option.firstVariadicArg(2));
    private static final MethodHandle IOCTL_INT = downcall("ioctl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG), ERRNO, Linker.Option.firstVariadicArg(2));

    private static final ThreadLocal<MemorySegment> CAPTURE =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURE_LAYOUT));

    private PosixIo() {}

    private static MethodHandle downcall(String name, FunctionDescriptor fd, Linker.Option... options) {
        return Linux.downcall(name, fd, options);
    }

    private static int errno(MemorySegment capture) {
        return capture.get(JAVA_INT, ERRNO_OFFSET);
    }

    private static RuntimeException unexpected(String call, Throwable t) {
        return Linux.unexpected(call, t);
    }

    /** open(path, flags). Allocates the C string: set-up only. @return fd or -errno */
    public static int open(String path, int flags) {
        MemorySegment capture = CAPTURE.get();
        try (Arena a = Arena.ofConfined()) {
            int rc = (int) OPEN.invokeExact(capture, a.allocateFrom(path), flags, 0);
            return rc >= 0 ? rc : -errno(capture);
        } catch (Throwable t) {
            throw unexpected("open", t);
        }
    }

    /** @return 0 or -errno */
    public static int close(int fd) {
        MemorySegment capture = CAPTURE.get();
        try {
            int rc = (int) CLOSE.invokeExact(capture, fd);
            return rc == 0 ? 0 : -errno(capture);
        } catch (Throwable t) {
            throw unexpected("close", t);
        }
    }

    /** The native address of {@code buf[offset, offset + count)}, checked to lie inside {@code buf}. */
    private static long address(MemorySegment buf, long offset, long count) {
        if (!buf.isNative() || offset < 0 || count < 0 || offset + count > buf.byteSize()) {
            throw new IndexOutOfBoundsException("bytes [" + offset + ", " + (offset + count) + ") outside a native segment of "
                    + buf.byteSize() + " bytes");
        }
        return buf.address() + offset;
    }

    /** read(fd, buf + offset, count). @return bytes read (0 at end of file) or -errno */
    public static long read(int fd, MemorySegment buf, long offset, long count) {
        MemorySegment capture = CAPTURE.get();
        try {
            long rc = (long) READ.invokeExact(capture, fd, address(buf, offset, count), count);
            return rc >= 0 ? rc : -errno(capture);
        } catch (Throwable t) {
            throw unexpected("read", t);
        }
    }

    /**
     * read(2) for a real-time path: like {@link #read} but allocation-free in every compilation
     * state, and without errno. @return bytes read, 0 at end of file, or -1 (the caller tells
     * EAGAIN from a gone device by poll's revents)
     */
    public static long readNoErrno(int fd, MemorySegment buf, long offset, long count) {
        try {
            return (long) READ_NO_ERRNO.invokeExact(fd, address(buf, offset, count), count);
        } catch (Throwable t) {
            throw unexpected("read", t);
        }
    }

    /**
     * pread(2) for a real-time path (a file read at {@code fileOffset}, the descriptor's own offset
     * untouched), allocation-free in every compilation state, without errno.
     *
     * @return bytes read, 0 at end of file, or -1
     */
    public static long preadNoErrno(int fd, MemorySegment buf, long offset, long count, long fileOffset) {
        try {
            return (long) PREAD_NO_ERRNO.invokeExact(fd, address(buf, offset, count), count, fileOffset);
        } catch (Throwable t) {
            throw unexpected("pread", t);
        }
    }

    /** write(2) for a real-time path: like {@link #readNoErrno}. @return bytes written or -1 */
    public static long writeNoErrno(int fd, MemorySegment buf, long offset, long count) {
        try {
            return (long) WRITE_NO_ERRNO.invokeExact(fd, address(buf, offset, count), count);
        } catch (Throwable t) {
            throw unexpected("write", t);
        }
    }

    /**
     * poll(2) for a real-time path: no errno, and -1 (EINTR, or ENOMEM) is returned to the caller,
     * who polls again. @return ready descriptors, 0 on timeout, or -1
     */
    public static int pollNoErrno(MemorySegment fds, int nfds, int timeoutMillis) {
        try {
            return (int) POLL_NO_ERRNO.invokeExact(address(fds, 0, (long) nfds * POLLFD_BYTES), (long) nfds, timeoutMillis);
        } catch (Throwable t) {
            throw unexpected("poll", t);
        }
    }

    /** write(fd, buf + offset, count). @return bytes written or -errno */
    public static long write(int fd, MemorySegment buf, long offset, long count) {
        MemorySegment capture = CAPTURE.get();
        try {
            long rc = (long) WRITE.invokeExact(capture, fd, address(buf, offset, count), count);
            return rc >= 0 ? rc : -errno(capture);
        } catch (Throwable t) {
            throw unexpected("write", t);
        }
    }

    /** poll(fds, nfds, timeoutMillis), resumed after EINTR. @return ready descriptors, 0 on timeout, or -errno */
    public static int poll(MemorySegment fds, int nfds, int timeoutMillis) {
        MemorySegment capture = CAPTURE.get();
        try {
            while (true) {
                int rc = (int) POLL.invokeExact(capture, fds, (long) nfds, timeoutMillis);
                if (rc >= 0) {
                    return rc;
                }
                int e = errno(capture);
                if (e != Errno.EINTR) {
                    return -e;
                }
            }
        } catch (Throwable t) {
            throw unexpected("poll", t);
        }
    }

    /** ioctl(fd, request, arg) with a pointer argument. @return the result (>= 0) or -errno */
    public static int ioctl(int fd, long request, MemorySegment arg) {
        MemorySegment capture = CAPTURE.get();
        try {
            int rc = (int) IOCTL_PTR.invokeExact(capture, fd, request, arg);
            return rc >= 0 ? rc : -errno(capture);
        } catch (Throwable t) {
            throw unexpected("ioctl", t);
        }
    }

    /** ioctl(fd, request, value) with an integer argument. @return the result (>= 0) or -errno */
    public static int ioctl(int fd, long request, long value) {
        MemorySegment capture = CAPTURE.get();
        try {
            int rc = (int) IOCTL_INT.invokeExact(capture, fd, request, value);
            return rc >= 0 ? rc : -errno(capture);
        } catch (Throwable t) {
            throw unexpected("ioctl", t);
        }
    }

    // ---- ioctl request numbers (asm-generic/ioctl.h: dir << 30 | size << 16 | type << 8 | nr) ----

    public static long io(char type, int nr) { return ((long) type << 8) | nr; }

    public static long iow(char type, int nr, int size) { return (1L << 30) | ((long) size << 16) | ((long) type << 8) | nr; }

    public static long ior(char type, int nr, int size) { return (2L << 30) | ((long) size << 16) | ((long) type << 8) | nr; }

    /** Text for a negated errno from these calls ("No such device (ENODEV)"); allocates. */
    public static String describe(int negErrno) {
        int e = -negErrno;
        return Linux.strerror(e) + " (errno " + e + ")";
    }
}
