package org.rtdroid.runtime.validation;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.rtdroid.runtime.manifest.Manifest;
import org.rtdroid.runtime.manifest.ManifestException;
import org.rtdroid.runtime.manifest.ManifestParser;
import org.rtdroid.runtime.text.Printable;
import org.rtdroid.runtime.xcc.CrossContextIntent;

/**
 * {@code java -cp rtdroid-runtime.jar org.rtdroid.runtime.validation.ValidateMain [options] MANIFEST...}
 * validates applications together for one RT cell (what {@code rtdroid validate} runs). A MANIFEST is
 * a manifest.xml or a directory holding one. Options: {@code --board NAME} (named in the report),
 * {@code --cpus N} (default 1), {@code --budget BYTES} (the board's rt_budget_bytes, default 64 MiB),
 * {@code --runtime-reserved BYTES}, {@code --json}, {@code --cheddar OUT.xml}; {@code --} ends the options.
 * Exit status: 0 everything holds, 1 it fails (the reasons are printed), 2 a manifest is malformed or
 * the command line is wrong (one line on stderr: file, line, element, what).
 */
public final class ValidateMain {
    /** The runtime's own reservation by default: the cross-context outbound ring, 1024 slots of one payload. */
    public static final long DEFAULT_RUNTIME_RESERVED_BYTES = 1024L * CrossContextIntent.MAX_PAYLOAD_BYTES;

    private ValidateMain() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        String board = "host";
        int cpus = 1;
        long budget = 64L << 20;
        long reserved = DEFAULT_RUNTIME_RESERVED_BYTES;
        boolean json = false;
        Path cheddar = null;
        List<Path> manifests = new ArrayList<>();
        try {
            boolean options = true;
            for (int i = 0; i < args.length; i++) {
                if (!options || !args[i].startsWith("--")) {
                    manifests.add(Path.of(args[i]));
                    continue;
                }
                switch (args[i]) {
                    case "--" -> options = false;
                    case "--board" -> board = value(args, ++i);
                    case "--cpus" -> cpus = (int) number(args, ++i, 1, 1024);
                    case "--budget" -> budget = number(args, ++i, 1, Long.MAX_VALUE);
                    case "--runtime-reserved" -> reserved = number(args, ++i, 0, Long.MAX_VALUE);
                    case "--json" -> json = true;
                    case "--cheddar" -> cheddar = Path.of(value(args, ++i));
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            if (manifests.isEmpty()) {
                throw new IllegalArgumentException("no MANIFEST given");
            }
        } catch (IllegalArgumentException e) {
            err.println("validate: " + e.getMessage());
            return 2;
        }
        // Every manifest is read and every refusal reported (not only the first): what the RT cell
        // agent would refuse to deploy is an error here too (Manifest.deployProblem), so what
        // validates, deploys.
        List<SystemModel> models = new ArrayList<>();
        boolean malformed = false;
        for (Path p : manifests) {
            Path file = Files.isDirectory(p) ? p.resolve("manifest.xml") : p;
            try {
                Manifest m = ManifestParser.parse(file.toString(), new ByteArrayInputStream(read(file)));
                String problem = m.deployProblem();
                if (problem != null) {
                    err.println("validate: " + Printable.escape(file.toString()) + ": <manifest>: " + problem);
                    malformed = true;
                    continue;
                }
                models.add(ModelBuilder.build(m, m.timing()));
            } catch (ManifestException e) {
                err.println("validate: " + e.getMessage());
                malformed = true;
            } catch (IOException e) {
                err.println("validate: " + Printable.escape(file.toString()) + ": cannot read: " + e.getMessage());
                malformed = true;
            }
        }
        if (malformed) {
            return 2;
        }
        ValidationReport report = Validation.run(SystemModel.union(models), new Cell(board, cpus, budget, reserved));
        out.print(json ? ReportJson.render(report) + "\n" : ReportText.render(report));
        if (cheddar != null) {
            try {
                Files.writeString(cheddar, CheddarExport.render(report), StandardCharsets.UTF_8);
            } catch (IOException e) {
                err.println("validate: cannot write " + cheddar + ": " + e.getMessage());
                return 2;
            }
        }
        return report.holds() ? 0 : 1;
    }

    private static byte[] read(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IOException("no such file");
        }
        try (var in = Files.newInputStream(file)) {
            return in.readNBytes(ManifestParser.MAX_MANIFEST_BYTES + 1);  // one more: the parser names the bound
        }
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) {
            throw new IllegalArgumentException(args[i - 1] + " needs a value");
        }
        return args[i];
    }

    private static long number(String[] args, int i, long min, long max) {
        String v = value(args, i);
        try {
            long n = Long.parseLong(v);
            if (n < min || n > max) {
                throw new IllegalArgumentException(args[i - 1] + " " + n + " is outside " + min + ".." + max);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(args[i - 1] + " '" + v + "' is not a whole number");
        }
    }
}
