package org.rtdroid.android.cell.bench;

import org.junit.runner.JUnitCore;
import org.junit.runner.Request;
import org.junit.runner.Result;

/**
 * A benchmark's command line (run.sh): its options become the system properties
 * {@code org.rtdroid.bench.<name>.form|out|command|...} its JUnit method reads (the method runs
 * in the cell's framework sandbox, so options cannot reach it as arguments), then that method runs.
 */
final class BenchMain {
    /** An option with a value: {@code flag VALUE} into {@code property} when VALUE matches. */
    record Option(String flag, String property, String pattern, String hint) {
    }

    private BenchMain() {
    }

    static void run(Class<?> bench, String name, String command, String[] args, Option... options) {
        String prefix = "org.rtdroid.bench." + name + ".";
        StringBuilder usage = new StringBuilder("[--quick|--full]");
        for (Option o : options) {
            usage.append(" [").append(o.flag()).append(' ').append(o.hint()).append(']');
        }
        usage.append(" [--out DIR]");
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = i + 1 < args.length ? args[i + 1] : null;
            Option option = null;
            for (Option o : options) {
                if (o.flag().equals(a)) {
                    option = o;
                }
            }
            if (a.equals("--quick") || a.equals("--full")) {
                System.setProperty(prefix + "form", a.substring(2));
                command += " " + a;
            } else if (a.equals("--out") && v != null) {
                System.setProperty(prefix + "out", v);
                i++;
            } else if (option != null && v != null && v.matches(option.pattern())) {
                System.setProperty(prefix + option.property(), v);
                command += " " + a + " " + v;
                i++;
            } else {
                System.err.println(bench.getSimpleName() + ": bad argument '" + a + "' (usage: " + usage + ")");
                System.exit(2);
            }
        }
        System.setProperty(prefix + "command", command);
        Result r = new JUnitCore().run(Request.method(bench, "measure"));
        r.getFailures().forEach(f -> System.err.println(f.getTrace()));
        System.exit(r.wasSuccessful() ? 0 : 1);
    }
}
