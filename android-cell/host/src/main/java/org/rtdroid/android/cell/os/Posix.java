package org.rtdroid.android.cell.os;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/**
 * The few libc calls the cell needs for app uids (through FFM, no JNI): whose process this is, and
 * giving a file to a uid. {@code chown} needs root; elsewhere the cell keeps the files its own.
 */
public final class Posix {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle GETEUID = LINKER.downcallHandle(
            LINKER.defaultLookup().find("geteuid").orElseThrow(), FunctionDescriptor.of(JAVA_INT));
    private static final MethodHandle CHOWN = LINKER.downcallHandle(
            LINKER.defaultLookup().find("chown").orElseThrow(), FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
    private static final MethodHandle SETGROUPS = LINKER.downcallHandle(
            LINKER.defaultLookup().find("setgroups").orElseThrow(), FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
    private static final MethodHandle SETRESGID = LINKER.downcallHandle(
            LINKER.defaultLookup().find("setresgid").orElseThrow(), FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle SETRESUID = LINKER.downcallHandle(
            LINKER.defaultLookup().find("setresuid").orElseThrow(), FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));

    private Posix() {
    }

    public static int geteuid() {
        try {
            return (int) GETEUID.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException("geteuid", t);
        }
    }

    /**
     * Makes this whole process the app's: no supplementary groups, then real, effective and saved
     * gid and uid (glibc's setresgid/setresuid apply to every thread of the process, so the JVM's
     * own threads drop too). Zygote's specialisation of a pre-started process. One way: there is no
     * going back to root. False when the kernel refused a step (not root, say).
     */
    public static boolean becomeApp(int uid, int gid) {
        try {
            return (int) SETGROUPS.invokeExact(0L, java.lang.foreign.MemorySegment.NULL) == 0
                    && (int) SETRESGID.invokeExact(gid, gid, gid) == 0
                    && (int) SETRESUID.invokeExact(uid, uid, uid) == 0;
        } catch (Throwable t) {
            throw new IllegalStateException("becoming uid " + uid, t);
        }
    }

    /** chown(2); false when the kernel refused it. */
    public static boolean chown(Path path, int uid, int gid) {
        try (Arena arena = Arena.ofConfined()) {
            return (int) CHOWN.invokeExact(arena.allocateFrom(path.toString()), uid, gid) == 0;
        } catch (Throwable t) {
            throw new IllegalStateException("chown " + path, t);
        }
    }
}
