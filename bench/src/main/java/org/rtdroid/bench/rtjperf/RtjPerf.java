package org.rtdroid.bench.rtjperf;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import org.rtdroid.json.JsonWriter;
import org.rtdroid.runtime.event.HandlerStrategy;
import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.os.RealtimePolicy;
import org.rtdroid.runtime.os.RealtimeThreads;

/**
 * RTJPerf (seed 003) in the RT cell's runtime: allocation time against size for heap and scoped
 * memory, event handler dispatch latency for bound and pooled handlers, and priority inversion
 * with one high handler among N low ones. The RT cell agent runs it in its own JVM on request
 * ({@code rtdroid characterise}), so it measures the runtime the cell's applications run in;
 * {@link #main} runs it standalone.
 *
 * <p>{@code [--quick] [--cpu N] all | alloc dispatch inversion}: one JSON row per line on
 * {@code rows}, progress on {@code progress}; 0 when every test ran, 2 on a bad command line, 3
 * when the watchdog stopped a phase that overran its bound. Every thread it starts is stopped
 * before it returns, and none of them spins while it waits.
 *
 * <p>{@code bench <name> [options]} runs one of the benchmarks instead, in the same JVM the agent
 * starts for this probe ({@code make bench BENCH=reflection BOARD=...}): its report is the output.
 */
public final class RtjPerf {
    static final String USAGE = "usage: rtjperf [--quick] [--cpu N] all | alloc dispatch inversion\n"
            + "       rtjperf bench <name> [bench options]   (a benchmark in the cell: org.rtdroid.bench.Main#inCell)";

    private RtjPerf() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    public static int run(String[] args, PrintStream rows, PrintStream progress) {
        if (args.length > 0 && args[0].equals("bench")) {
            return org.rtdroid.bench.Main.inCell(java.util.Arrays.copyOfRange(args, 1, args.length), rows, progress);
        }
        boolean quick = false;
        int cpu = -1;
        List<String> tests = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--quick" -> quick = true;
                case "--cpu" -> {
                    if (i + 1 >= args.length || !args[i + 1].matches("\\d{1,4}")) {
                        progress.println("rtjperf: --cpu needs a CPU number\n" + USAGE);
                        return 2;
                    }
                    cpu = Integer.parseInt(args[++i]);
                }
                case "all" -> tests.addAll(List.of("alloc", "dispatch", "inversion"));
                case "alloc", "dispatch", "inversion" -> tests.add(a);
                default -> {
                    progress.println("rtjperf: unknown test or option '" + a + "'\n" + USAGE);
                    return 2;
                }
            }
        }
        if (tests.isEmpty()) {
            progress.println("rtjperf: no test named\n" + USAGE);
            return 2;
        }
        CpuSet cpus = cpu >= 0 ? CpuSet.of(cpu) : null;
        boolean fifo = RealtimeThreads.schedFifoPermitted();
        IntFunction<RealtimePolicy> policyFor = p -> (fifo ? RealtimePolicy.fifo(p) : RealtimePolicy.normal()).withCpus(cpus);
        rows.println(new JsonWriter().beginObject().field("test", "jvm").field("java", System.getProperty("java.vm.version"))
                .field("gc", gc()).field("sched_fifo", fifo).field("cpu", cpu)
                .field("clock_read_ns", clockRead()).endObject());
        boolean isQuick = quick;
        // generous: a quick phase takes a second here, tens of seconds under emulation
        Watchdog watchdog = new Watchdog(quick ? 300 : 1800);
        int[] result = {0};
        Thread t = RealtimeThreads.start("rtjperf", new RealtimePolicy(fifo ? Dispatch.FIRER : 0, cpus, 1), () -> {
            try {
                for (String test : tests) {
                    switch (test) {
                        case "alloc" -> Allocation.run(isQuick ? 1000 : 10_000, rows, progress, watchdog);
                        case "dispatch" -> {
                            for (HandlerStrategy s : HandlerStrategy.values()) {
                                progress.println("dispatch: " + s.manifestName() + " handler, lockstep");
                                watchdog.phase("dispatch " + s.manifestName());
                                Dispatch.row(rows, "dispatch", s, 0,
                                        Dispatch.series(s, 0, isQuick ? 500 : 2000, policyFor, watchdog).latency, true);
                            }
                        }
                        case "inversion" -> {
                            int[] ns = isQuick ? new int[] {0, 10, 100, 1000} : new int[] {0, 10, 50, 100, 500, 1000};
                            for (HandlerStrategy s : HandlerStrategy.values()) {
                                for (int n : ns) {
                                    if (s == HandlerStrategy.BOUND && n > Dispatch.MAX_BOUND_LOWS) {
                                        Dispatch.unavailable(rows, "inversion", s, n, "a bound handler is a SCHED_FIFO "
                                                + "thread of its own: " + n + " of them on one CPU starve the JVM's own "
                                                + "threads at a safepoint; bound series go up to " + Dispatch.MAX_BOUND_LOWS);
                                        continue;
                                    }
                                    int lows = n;
                                    String cappedBy = null;
                                    if (s == HandlerStrategy.BOUND && n > 0) {
                                        long available = Dispatch.availableBytes();
                                        lows = available < 0 ? n : Dispatch.boundLowsThatFit(n, available);
                                        if (lows < n) {
                                            cappedBy = String.format("the cell's memory: %d MiB available, %d MiB kept free, "
                                                    + "%d KiB per bound handler's thread", available >> 20,
                                                    Dispatch.MEMORY_RESERVE_BYTES >> 20, Dispatch.HANDLER_THREAD_BYTES >> 10);
                                        }
                                    }
                                    progress.println("inversion: " + s.manifestName() + " H among " + lows + " low handlers"
                                            + (cappedBy == null ? "" : " (of " + n + ": " + cappedBy + ")"));
                                    watchdog.phase("inversion " + s.manifestName() + " N=" + lows);
                                    Dispatch.row(rows, "inversion", s, lows, n, cappedBy,
                                            Dispatch.series(s, lows, isQuick ? 300 : 2000, policyFor, watchdog).latency, false);
                                }
                            }
                        }
                        default -> throw new IllegalStateException(test);
                    }
                }
            } catch (Watchdog.Overrun e) {
                progress.println("rtjperf: watchdog: " + e.getMessage() + "; stopped (its threads were stopped with it)");
                result[0] = 3;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                result[0] = 1;
            }
        });
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
        return result[0];
    }

    /** The median of back-to-back System.nanoTime reads: what every figure includes once. */
    private static long clockRead() {
        Samples s = new Samples(10_000);
        for (int i = 0; i < 10_000; i++) {
            long a = System.nanoTime();
            s.add(System.nanoTime() - a);
        }
        return Samples.quantile(s.sorted(), 0.5);
    }

    private static String gc() {
        for (var b : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
            return b.getName();
        }
        return "unknown";
    }
}
