package org.rtdroid.bridge;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Maps a range of a character device (/dev/mem) with {@code open(O_RDWR|O_SYNC)} + {@code mmap}.
 * {@code FileChannel.map} cannot: it tries to "extend" a device whose size reads as 0 and fails
 * with EINVAL from ftruncate. This code is compiled for Java 11, so it reaches the FFM API
 * (Java 22+) reflectively; on older runtimes (Android) it reports that physical mappings need the
 * RT cell's JVM. Runs once, at start-up.
 */
final class PhysicalMap {
    private static final int O_RDWR = 2;
    private static final int O_SYNC = 0x101000; // asm-generic and x86-64 alike
    private static final int PROT_READ_WRITE = 3;
    private static final int MAP_SHARED = 1;

    private PhysicalMap() {
    }

    static ByteBuffer map(Path device, long physAddr, long sizeBytes) throws IOException {
        Object mapped;
        try {
            Class<?> linkerC = Class.forName("java.lang.foreign.Linker");
            Class<?> lookupC = Class.forName("java.lang.foreign.SymbolLookup");
            Class<?> descC = Class.forName("java.lang.foreign.FunctionDescriptor");
            Class<?> layoutC = Class.forName("java.lang.foreign.MemoryLayout");
            Class<?> valueC = Class.forName("java.lang.foreign.ValueLayout");
            Class<?> segC = Class.forName("java.lang.foreign.MemorySegment");
            Class<?> optionC = Class.forName("java.lang.foreign.Linker$Option");
            Class<?> arenaC = Class.forName("java.lang.foreign.Arena");
            Class<?> allocatorC = Class.forName("java.lang.foreign.SegmentAllocator");
            Object linker = linkerC.getMethod("nativeLinker").invoke(null);
            Object lookup = linkerC.getMethod("defaultLookup").invoke(linker);
            Method find = lookupC.getMethod("find", String.class);
            Object address = valueC.getField("ADDRESS").get(null);
            Object jint = valueC.getField("JAVA_INT").get(null);
            Object jlong = valueC.getField("JAVA_LONG").get(null);
            Class<?> layouts = Array.newInstance(layoutC, 0).getClass();
            Method of = descC.getMethod("of", layoutC, layouts);
            Method downcall = linkerC.getMethod("downcallHandle", segC, descC, Array.newInstance(optionC, 0).getClass());
            Object noOptions = Array.newInstance(optionC, 0);
            MethodHandle open = (MethodHandle) downcall.invoke(linker, symbol(find, lookup, "open"),
                    of.invoke(null, jint, layoutArray(layoutC, address, jint)), noOptions);
            MethodHandle mmap = (MethodHandle) downcall.invoke(linker, symbol(find, lookup, "mmap"),
                    of.invoke(null, address, layoutArray(layoutC, address, jlong, jint, jint, jint, jlong)), noOptions);
            MethodHandle close = (MethodHandle) downcall.invoke(linker, symbol(find, lookup, "close"),
                    of.invoke(null, jint, layoutArray(layoutC, jint)), noOptions);
            Object arena = arenaC.getMethod("ofAuto").invoke(null);
            Object cPath = allocatorC.getMethod("allocateFrom", String.class).invoke(arena, device.toString());
            int fd = (int) open.invokeWithArguments(cPath, O_RDWR | O_SYNC);
            if (fd < 0) {
                throw new IOException("open(" + device + ", O_RDWR|O_SYNC) failed (root? does the device exist?)");
            }
            Object nullSeg = segC.getField("NULL").get(null);
            Object seg;
            try {
                seg = mmap.invokeWithArguments(nullSeg, sizeBytes, PROT_READ_WRITE, MAP_SHARED, fd, physAddr);
            } finally {
                close.invokeWithArguments(fd); // the mapping outlives the descriptor
            }
            long addr = (long) segC.getMethod("address").invoke(seg);
            if (addr == -1L) {
                throw new IOException("mmap(" + device + ", 0x" + Long.toHexString(physAddr) + ", " + sizeBytes
                        + ") failed (a kernel with CONFIG_STRICT_DEVMEM refuses RAM it manages: reserve the range)");
            }
            Object whole = segC.getMethod("reinterpret", long.class).invoke(seg, sizeBytes);
            mapped = segC.getMethod("asByteBuffer").invoke(whole);
        } catch (ClassNotFoundException | NoSuchMethodException | NoSuchFieldException e) {
            throw new IOException("mapping " + device + " needs the FFM API (Java 22+, the RT cell's JVM); this runtime"
                    + " lacks " + e.getMessage(), e);
        } catch (IOException e) {
            throw e;
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw new IOException("mapping " + device + " failed: " + e.getCause(), e.getCause());
        } catch (Throwable e) {
            throw new IOException("mapping " + device + " failed: " + e, e);
        }
        return (ByteBuffer) mapped;
    }

    private static Object symbol(Method find, Object lookup, String name) throws Exception {
        Optional<?> found = (Optional<?>) find.invoke(lookup, name);
        if (!found.isPresent()) {
            throw new IOException("libc has no symbol " + name);
        }
        return found.get();
    }

    private static Object layoutArray(Class<?> layoutC, Object... layouts) {
        Object array = Array.newInstance(layoutC, layouts.length);
        for (int i = 0; i < layouts.length; i++) {
            Array.set(array, i, layouts[i]);
        }
        return array;
    }
}
