package org.rtdroid.android.cell.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.runner.JUnitCore;
import org.junit.runner.Request;
import org.junit.runner.Result;

/**
 * The benchmarks' command line (run.sh): {@code BenchMain NAME[,NAME...] [--quick|--full] [options]
 * [--out DIR]}. The options become the system properties {@code org.rtdroid.bench.<name>.form|out|
 * command|...} each benchmark's JUnit method reads (the method runs in the cell's framework sandbox,
 * so options cannot reach it as arguments), then those methods run one after the other in this JVM:
 * a list starts the sandbox once for all of them.
 */
final class BenchMain {
    /** An option with a value: {@code flag VALUE} into {@code property} when VALUE matches. */
    record Option(String flag, String property, String pattern, String hint) {
    }

    /** A benchmark run.sh names: its JUnit class (method {@code measure}) and the options it takes. */
    record Bench(String name, Class<?> test, Option... options) {
    }

    static final List<Bench> BENCHES = List.of(
            new Bench("intents", IntentDelayBench.class, new Option("--period-ms", "periodMs", "[1-9][0-9]{0,3}", "1..9999")),
            new Bench("tasks", TaskDurationBench.class),
            new Bench("sensor", SensorPathBench.class, new Option("--runs", "runs", "[1-9][0-9]{0,2}", "N (1..999)")));

    private BenchMain() {
    }

    public static void main(String[] args) {
        List<Bench> selected = new ArrayList<>();
        for (String name : args.length == 0 ? new String[] {""} : args[0].split(",", -1)) {
            Bench b = BENCHES.stream().filter(x -> x.name().equals(name)).findFirst().orElse(null);
            if (b == null) {
                fail("unknown benchmark '" + name + "' (choose from "
                        + String.join(", ", BENCHES.stream().map(Bench::name).toList()) + ", or a comma-separated list)");
            }
            selected.add(b);
        }
        Map<Bench, String> commands = new LinkedHashMap<>();
        for (Bench b : selected) {
            commands.put(b, "android-cell/bench/run.sh " + b.name());
        }
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            String v = i + 1 < args.length ? args[i + 1] : null;
            if (a.equals("--quick") || a.equals("--full")) {
                for (Bench b : selected) {
                    set(b, "form", a.substring(2));
                    commands.merge(b, " " + a, String::concat);
                }
            } else if (a.equals("--out") && v != null) {
                selected.forEach(b -> set(b, "out", v));
                i++;
            } else {
                boolean taken = false;
                for (Bench b : selected) {
                    for (Option o : b.options()) {
                        if (o.flag().equals(a) && v != null && v.matches(o.pattern())) {
                            set(b, o.property(), v);
                            commands.merge(b, " " + a + " " + v, String::concat);
                            taken = true;
                        }
                    }
                }
                if (!taken) {
                    fail("bad argument '" + a + "' (usage: " + usage(selected) + ")");
                }
                i++;
            }
        }
        commands.forEach((b, command) -> set(b, "command", command));
        boolean ok = true;
        JUnitCore junit = new JUnitCore();
        for (Bench b : selected) {
            Result r = junit.run(Request.method(b.test(), "measure"));
            r.getFailures().forEach(f -> System.err.println(b.test().getSimpleName() + ": " + f.getTrace()));
            ok &= r.wasSuccessful();
        }
        System.exit(ok ? 0 : 1);
    }

    private static void set(Bench b, String property, String value) {
        System.setProperty("org.rtdroid.bench." + b.name() + "." + property, value);
    }

    private static String usage(List<Bench> selected) {
        StringBuilder usage = new StringBuilder(String.join(",", selected.stream().map(Bench::name).toList()))
                .append(" [--quick|--full]");
        for (Bench b : selected) {
            for (Option o : b.options()) {
                usage.append(" [").append(o.flag()).append(' ').append(o.hint()).append(']');
            }
        }
        return usage.append(" [--out DIR]").toString();
    }

    private static void fail(String why) {
        System.err.println("android-cell/bench/run.sh: " + why);
        System.exit(2);
    }
}
