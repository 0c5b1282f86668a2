package org.rtdroid.android.cell.binder;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A Unix domain stream socket through libc (FFM): listen, accept, and the peer's credentials as the
 * kernel recorded them at connect ({@code getsockopt(SO_PEERCRED)}: pid, uid, gid), which a
 * caller cannot choose. Java's own channels give the uid and gid as names but not the pid.
 */
final class UnixSocket {
    /** What the kernel says of the process at the other end. */
    record Peer(int pid, int uid, int gid) {
    }

    private static final int AF_UNIX = 1;
    private static final int SOCK_STREAM = 1;
    private static final int SOCK_CLOEXEC = 02000000;
    private static final int SOL_SOCKET = 1;
    private static final int SO_PEERCRED = 17;
    private static final int SUN_PATH_BYTES = 108;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final long ERRNO = CAPTURE.byteOffset(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle SOCKET = call("socket", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle BIND = call("bind", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle LISTEN = call("listen", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle ACCEPT4 = call("accept4",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    private static final MethodHandle GETSOCKOPT = call("getsockopt",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle READ = call("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle WRITE = call("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle SHUTDOWN = call("shutdown", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle CLOSE = call("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    private UnixSocket() {
    }

    private static MethodHandle call(String name, FunctionDescriptor d) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), d,
                Linker.Option.captureCallState("errno"));
    }

    private static int errno(MemorySegment state) {
        return state.get(JAVA_INT, ERRNO);
    }

    /** A listening socket bound to {@code path}. */
    static int listen(Path path, int backlog) throws IOException {
        byte[] p = path.toString().getBytes(StandardCharsets.UTF_8);
        if (p.length >= SUN_PATH_BYTES) {
            throw new IOException("socket path " + path + " is over " + (SUN_PATH_BYTES - 1) + " bytes");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CAPTURE);
            int fd = (int) SOCKET.invokeExact(st, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
            if (fd < 0) {
                throw new IOException("socket(AF_UNIX): errno " + errno(st));
            }
            MemorySegment addr = a.allocate(2 + SUN_PATH_BYTES);
            addr.set(JAVA_SHORT, 0, (short) AF_UNIX);
            MemorySegment.copy(p, 0, addr, JAVA_BYTE, 2, p.length);
            if ((int) BIND.invokeExact(st, fd, addr, 2 + p.length + 1) != 0) {
                int e = errno(st);
                close(fd);
                throw new IOException("bind " + path + ": errno " + e);
            }
            if ((int) LISTEN.invokeExact(st, fd, backlog) != 0) {
                int e = errno(st);
                close(fd);
                throw new IOException("listen " + path + ": errno " + e);
            }
            return fd;
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException(t);
        }
    }

    /** The next connection's fd (blocks), or -1 once the listening socket is shut down. */
    static int accept(int listenFd) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CAPTURE);
            return (int) ACCEPT4.invokeExact(st, listenFd, MemorySegment.NULL, MemorySegment.NULL, SOCK_CLOEXEC);
        } catch (Throwable t) {
            return -1;
        }
    }

    static Peer peer(int fd) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CAPTURE);
            MemorySegment cred = a.allocate(12);
            MemorySegment len = a.allocate(JAVA_INT);
            len.set(JAVA_INT, 0, 12);
            if ((int) GETSOCKOPT.invokeExact(st, fd, SOL_SOCKET, SO_PEERCRED, cred, len) != 0) {
                throw new IOException("getsockopt(SO_PEERCRED): errno " + errno(st));
            }
            return new Peer(cred.get(JAVA_INT, 0), cred.get(JAVA_INT, 4), cred.get(JAVA_INT, 8));
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException(t);
        }
    }

    /** Up to {@code buf.byteSize()} bytes; 0 at the end of the stream. */
    static int read(int fd, MemorySegment buf, MemorySegment state) throws IOException {
        try {
            long n = (long) READ.invokeExact(state, fd, buf, buf.byteSize());
            if (n < 0) {
                throw new IOException("read: errno " + errno(state));
            }
            return (int) n;
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException(t);
        }
    }

    static void writeFully(int fd, MemorySegment buf, MemorySegment state) throws IOException {
        long off = 0;
        try {
            while (off < buf.byteSize()) {
                long n = (long) WRITE.invokeExact(state, fd, buf.asSlice(off), buf.byteSize() - off);
                if (n <= 0) {
                    throw new IOException("write: errno " + errno(state));
                }
                off += n;
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException(t);
        }
    }

    /** Wakes a thread blocked in accept or read on it (SHUT_RDWR). */
    static void shutdown(int fd) {
        try (Arena a = Arena.ofConfined()) {
            int ignored = (int) SHUTDOWN.invokeExact(a.allocate(CAPTURE), fd, 2);
        } catch (Throwable ignored) {
            // closing anyway
        }
    }

    static void close(int fd) {
        try (Arena a = Arena.ofConfined()) {
            int ignored = (int) CLOSE.invokeExact(a.allocate(CAPTURE), fd);
        } catch (Throwable ignored) {
            // nothing left to do
        }
    }
}
