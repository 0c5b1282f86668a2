package org.rtdroid.bench;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The JVM's own threads that the RT cell's JVM flags lift above ordinary Java threads
 * ({@code -XX:ThreadPriorityPolicy=1 -XX:JavaPriority9_To_OSPriority=-10}, tools/rtdroid/rtdroid/render.py:
 * the VM thread and the GC's threads at nice -10; -XX:CompilerThreadPriority=0 keeps the JIT's at 0), found as the threads of this process
 * whose nice value is below 0 when the benchmark starts. A benchmark can put them back to nice 0
 * for some cases, which is the JVM as it ran without those flags, and lift them again: both
 * configurations in one run, facing the same machine.
 */
final class JvmThreads {
    private static final int PRIO_PROCESS = 0;
    private static final MethodHandle SETPRIORITY = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("setpriority").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));

    /** Thread id to its nice value at start, for every thread of this process below nice 0. */
    private final Map<Integer, Integer> lifted;

    private JvmThreads(Map<Integer, Integer> lifted) {
        this.lifted = lifted;
    }

    /** The threads of this process below nice 0 now. */
    static JvmThreads lifted() throws IOException {
        JvmThreads t = new JvmThreads(new LinkedHashMap<>());
        t.addLifted();
        return t;
    }

    /** Adds the threads below nice 0 not known yet (the JVM starts some on demand: JIT, GC workers). */
    private void addLifted() throws IOException {
        Map<Integer, Integer> out = lifted;
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                int nice;
                try {
                    nice = niceOf(Files.readString(task.resolve("stat")));
                } catch (IOException e) {
                    continue; // the thread ended meanwhile
                }
                if (nice < 0) {
                    out.putIfAbsent(Integer.parseInt(task.getFileName().toString()), nice);
                }
            }
        }
    }

    /** Field 19 of /proc/[tid]/stat (after the parenthesised command, which may hold spaces). */
    static int niceOf(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Integer.parseInt(f[16]);
    }

    /** Whether the JVM's flags lifted any thread (false: not started with them, or without CAP_SYS_NICE). */
    boolean any() {
        return !lifted.isEmpty();
    }

    /** The nice value of the VM and GC threads when lifted (the lowest the flags gave), else 0. */
    int liftedNice(boolean lift) {
        return lift ? lifted.values().stream().mapToInt(Integer::intValue).min().orElse(0) : 0;
    }

    /** Puts every lifted thread back to nice 0 ({@code lift = false}) or to its nice at start. */
    void lift(boolean lift) throws IOException {
        addLifted();
        for (Map.Entry<Integer, Integer> e : lifted.entrySet()) {
            int nice = lift ? e.getValue() : 0;
            try {
                int rc = (int) SETPRIORITY.invokeExact(PRIO_PROCESS, (int) e.getKey(), nice);
                if (rc != 0 && Files.exists(Path.of("/proc/self/task/" + e.getKey()))) {
                    throw new IllegalStateException("setpriority(" + e.getKey() + ", " + nice + ") failed");
                }
            } catch (RuntimeException | Error x) {
                throw x;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }
    }
}
