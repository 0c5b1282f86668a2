package org.rtdroid.android.cell.os;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

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

    private Posix() {
    }

    public static int geteuid() {
        try {
            return (int) GETEUID.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException("geteuid", t);
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
