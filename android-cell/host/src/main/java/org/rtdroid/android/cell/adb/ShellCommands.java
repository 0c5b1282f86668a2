package org.rtdroid.android.cell.adb;

import org.rtdroid.android.cell.os.CellException;
import org.rtdroid.android.cell.os.CellLog;
import org.rtdroid.android.cell.os.MainThread;
import org.rtdroid.android.cell.pm.InstalledApp;

import android.content.ComponentName;
import android.content.Intent;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.rtdroid.android.proxy.ProxyCore;

/**
 * The device's shell as adb reaches it: the commands a developer types after {@code adb shell}
 * ({@code am}, {@code pm}, {@code dumpsys}, {@code logcat}, {@code screencap}, {@code getprop} and
 * a few file commands), with a shell's quoting, {@code ;} between commands, and the exit status
 * of the last. Commands this device does not have answer as a shell does
 * ({@code sh: x: not found}, 127). Without a command it reads lines (an interactive shell).
 */
final class ShellCommands {
    static final String PROMPT = "rtdroid:/ $ ";
    private static final Map<String, String> PROPERTIES = new LinkedHashMap<>();

    static {
        PROPERTIES.put("ro.build.version.sdk", Integer.toString(android.os.Build.VERSION.SDK_INT));
        PROPERTIES.put("ro.build.version.release", android.os.Build.VERSION.RELEASE);
        PROPERTIES.put("ro.product.model", "RTDroid_Android_cell");
        PROPERTIES.put("ro.product.name", "rtdroid_cell");
        PROPERTIES.put("ro.product.device", "rtdroid");
        PROPERTIES.put("ro.product.cpu.abi", "x86_64");
        PROPERTIES.put("ro.kernel.qemu", "0");
        PROPERTIES.put("sys.boot_completed", "1");
    }

    private final AdbDevice device;
    private final ShellChannel channel;
    private final PrintStream out;
    private final PrintStream err;

    ShellCommands(AdbDevice device, ShellChannel channel) {
        this.device = device;
        this.channel = channel;
        this.out = new PrintStream(channel.stdout(), false, StandardCharsets.UTF_8);
        this.err = new PrintStream(channel.stderr(), false, StandardCharsets.UTF_8);
    }

    void run(String commandLine) throws IOException {
        int status;
        if (commandLine.isBlank()) {
            status = interactive();
        } else {
            status = runLine(commandLine);
        }
        out.flush();
        err.flush();
        channel.exit(status);
    }

    private int interactive() throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(channel.stdin(), StandardCharsets.UTF_8));
        int status = 0;
        while (true) {
            out.print(PROMPT);
            out.flush();
            String line = in.readLine();
            if (line == null || line.trim().equals("exit")) {
                return status;
            }
            status = runLine(line);
        }
    }

    /** One line: commands separated by ';' (outside quotes), run in turn; the last one's status. */
    int runLine(String line) {
        int status = 0;
        for (List<String> argv : parse(line)) {
            if (argv.isEmpty()) {
                continue;
            }
            try {
                status = command(argv);
            } catch (IOException e) {
                return 1; // the client went away
            } catch (CellException e) {
                err.println(argv.get(0) + ": " + e.getMessage());
                status = 1;
            } catch (RuntimeException e) {
                CellLog.e(AdbConnection.TAG, "shell command '" + line + "' failed", e);
                err.println(argv.get(0) + ": " + e);
                status = 1;
            }
            out.flush();
            err.flush();
        }
        return status;
    }

    private int command(List<String> words) throws IOException, CellException {
        List<String> argv = new ArrayList<>();
        for (int i = 0; i < words.size(); i++) {
            String w = words.get(i);
            // Input from /dev/null (adb's own 'rm -f FILE </dev/null') changes nothing here;
            // any other redirection is refused rather than half done.
            if (w.equals("</dev/null") || (w.equals("<") && i + 1 < words.size() && words.get(++i).equals("/dev/null"))) {
                continue;
            }
            if (w.startsWith("<") || w.startsWith(">") || w.matches("[0-9]>.*") || w.equals("|") || w.equals("&&")) {
                err.println("/system/bin/sh: '" + w + "': redirections and pipes are not supported by this shell");
                return 2;
            }
            argv.add(w);
        }
        if (argv.isEmpty()) {
            return 0;
        }
        String name = argv.get(0);
        List<String> args = argv.subList(1, argv.size());
        switch (name) {
            case "export":
                return 0; // adb logcat exports ANDROID_LOG_TAGS first; this shell keeps no environment
            case "exec":
                return args.isEmpty() ? 0 : command(new ArrayList<>(args));
            case "true":
                return 0;
            case "false":
                return 1;
            case "echo":
                out.println(String.join(" ", args));
                return 0;
            case "am":
                return am(args);
            case "pm":
                return pm(args);
            case "cmd":
                if (!args.isEmpty() && args.get(0).equals("package")) {
                    return pm(args.subList(1, args.size()));
                }
                if (!args.isEmpty() && args.get(0).equals("activity")) {
                    return am(args.subList(1, args.size()));
                }
                if (args.size() == 2 && args.get(0).equals("control") && args.get(1).equals("token")
                        && device.controlToken != null) {
                    out.println(device.controlToken); // this client holds an authorised key
                    return 0;
                }
                err.println("cmd: Can't find service: " + (args.isEmpty() ? "" : args.get(0)));
                return 20;
            case "dumpsys":
                return dumpsys(args);
            case "logcat":
                return logcat(args);
            case "screencap":
                return screencap(args);
            case "getprop":
                if (args.isEmpty()) {
                    PROPERTIES.forEach((k, v) -> out.println("[" + k + "]: [" + v + "]"));
                } else {
                    out.println(PROPERTIES.getOrDefault(args.get(0), ""));
                }
                return 0;
            case "rm":
                return rm(args);
            case "ls":
                return ls(args);
            default:
                err.println("/system/bin/sh: " + name + ": inaccessible or not found");
                return 127;
        }
    }

    // ------------------------------------------------------------------ am

    private int am(List<String> args) throws CellException {
        if (args.isEmpty()) {
            err.println("usage: am start [-W] [-S] -n PACKAGE/CLASS | am force-stop PACKAGE | "
                    + "am broadcast -a ACTION [-p PACKAGE] [-n COMPONENT] [--es|--ei|--ez KEY VALUE]");
            return 1;
        }
        switch (args.get(0)) {
            case "start":
            case "start-activity":
                return amStart(args.subList(1, args.size()));
            case "force-stop":
            case "kill":
                if (args.size() < 2) {
                    err.println("am " + args.get(0) + ": a package is required");
                    return 1;
                }
                String pkg = args.get(args.size() - 1);
                MainThread.call(() -> {
                    device.am.stop(pkg);
                    return null;
                });
                return 0;
            case "broadcast":
                return amBroadcast(args.subList(1, args.size()));
            default:
                err.println("am: unknown command '" + args.get(0) + "' (start, force-stop, broadcast)");
                return 1;
        }
    }

    private int amStart(List<String> args) throws CellException {
        String component = null;
        boolean wait = false;
        boolean stopFirst = false;
        String pkgOnly = null;
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            switch (a) {
                case "-n" -> component = value(args, ++i, a);
                case "-W" -> wait = true;
                case "-S" -> stopFirst = true;
                case "-a", "-c", "--user" -> value(args, ++i, a); // the launcher intent is implied
                default -> {
                    if (a.startsWith("-")) {
                        err.println("am start: option " + a + " is not supported here");
                        return 1;
                    }
                    pkgOnly = a;
                }
            }
        }
        if (component == null && pkgOnly == null) {
            err.println("am start: -n PACKAGE/CLASS (or a package) is required");
            return 1;
        }
        String pkg;
        String cls;
        if (component != null) {
            ComponentName cn = ComponentName.unflattenFromString(component);
            if (cn == null) {
                err.println("Error: bad component name " + component);
                return 1;
            }
            pkg = cn.getPackageName();
            cls = cn.getClassName();
        } else {
            pkg = pkgOnly;
            cls = null;
        }
        out.println("Starting: Intent { " + (cls == null ? "pkg=" + pkg : "cmp=" + pkg + "/" + cls) + " }");
        out.flush();
        if (stopFirst) {
            MainThread.call(() -> {
                device.am.stop(pkg);
                return null;
            });
        }
        long t0 = System.nanoTime();
        String a;
        try {
            a = device.am.startActivity(pkg, cls);
        } catch (CellException e) {
            err.println("Error: Activity not started, " + e.getMessage());
            return 1;
        }
        long millis = (System.nanoTime() - t0) / 1_000_000;
        if (wait) {
            out.println("Status: ok");
            out.println("LaunchState: COLD");
            out.println("Activity: " + pkg + "/" + a);
            out.println("TotalTime: " + millis);
            out.println("WaitTime: " + millis);
            out.println("Complete");
        }
        return 0;
    }

    private int amBroadcast(List<String> args) throws CellException {
        Intent intent = new Intent();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            switch (a) {
                case "-a" -> intent.setAction(value(args, ++i, a));
                case "-p" -> intent.setPackage(value(args, ++i, a));
                case "-n" -> {
                    ComponentName cn = ComponentName.unflattenFromString(value(args, ++i, a));
                    if (cn == null) {
                        err.println("Error: bad component name " + args.get(i));
                        return 1;
                    }
                    intent.setComponent(cn);
                }
                case "--es" -> intent.putExtra(value(args, ++i, a), value(args, ++i, a));
                case "--ei" -> {
                    String k = value(args, ++i, a);
                    intent.putExtra(k, Integer.parseInt(value(args, ++i, a)));
                }
                case "--el" -> {
                    String k = value(args, ++i, a);
                    intent.putExtra(k, Long.parseLong(value(args, ++i, a)));
                }
                case "--ez" -> {
                    String k = value(args, ++i, a);
                    intent.putExtra(k, Boolean.parseBoolean(value(args, ++i, a)));
                }
                case "--user" -> value(args, ++i, a);
                default -> {
                    err.println("am broadcast: option " + a + " is not supported here");
                    return 1;
                }
            }
        }
        out.println("Broadcasting: " + intent);
        out.flush();
        device.am.sendShellBroadcast(intent);
        out.println("Broadcast completed: result=0");
        return 0;
    }

    // ------------------------------------------------------------------ pm

    private int pm(List<String> args) throws CellException {
        if (args.isEmpty()) {
            err.println("usage: pm list packages [-3|-s] [FILTER] | pm install PATH | pm uninstall PACKAGE");
            return 1;
        }
        switch (args.get(0)) {
            case "list":
                if (args.size() < 2 || !args.get(1).equals("packages")) {
                    err.println("pm list: only 'packages' is listed here");
                    return 1;
                }
                boolean third = args.contains("-3");
                boolean system = args.contains("-s");
                String filter = args.subList(2, args.size()).stream().filter(s -> !s.startsWith("-")).findFirst()
                        .orElse("");
                TreeSet<String> names = new TreeSet<>();
                for (InstalledApp app : device.am.packages.installed()) {
                    if ((!third || !app.system) && (!system || app.system) && app.packageName.contains(filter)) {
                        names.add(app.packageName);
                    }
                }
                names.forEach(n -> out.println("package:" + n));
                return 0;
            case "install":
                return pmInstall(args.subList(1, args.size()));
            case "uninstall":
                if (args.size() < 2) {
                    err.println("pm uninstall: a package is required");
                    return 1;
                }
                String pkg = args.get(args.size() - 1);
                try {
                    MainThread.call(() -> {
                        device.am.uninstall(pkg);
                        return null;
                    });
                } catch (CellException e) {
                    out.println("Failure [DELETE_FAILED_INTERNAL_ERROR: " + e.getMessage() + "]");
                    return 1;
                }
                out.println("Success");
                return 0;
            default:
                err.println("pm: unknown command '" + args.get(0) + "' (list packages, install, uninstall)");
                return 1;
        }
    }

    private int pmInstall(List<String> args) {
        String file = null;
        for (String a : args) {
            if (!a.startsWith("-")) {
                file = a;
            }
        }
        if (file == null) {
            err.println("pm install: a path is required");
            return 1;
        }
        Path p = device.resolve(file);
        if (p == null) {
            out.println("Failure [INSTALL_FAILED_INVALID_URI: " + file
                    + " is not readable here (push the APK to /data/local/tmp)]");
            return 1;
        }
        try {
            InstalledApp app = device.am.installApk(p);
            CellLog.i(AdbConnection.TAG, "pm install " + file + ": " + app.packageName);
            out.println("Success");
            return 0;
        } catch (CellException e) {
            String m = e.getMessage().replace(p.toString(), file); // the path the client knows
            String code = m.startsWith("INSTALL_") ? ""
                    : e.status == 409 ? "INSTALL_FAILED_ALREADY_EXISTS: "
                    : m.contains("not signed or does not verify") ? "INSTALL_PARSE_FAILED_NO_CERTIFICATES: "
                    : "INSTALL_FAILED_INVALID_APK: ";
            out.println("Failure [" + code + m + "]");
            return 1;
        }
    }

    // ------------------------------------------------------------------ dumpsys

    private int dumpsys(List<String> args) throws CellException {
        List<String> services = List.of("activity", "package", "rtdroid.proxy", "broadcasts", "binder", "adb");
        if (!args.isEmpty() && args.get(0).equals("-l")) {
            out.println("Currently running services:");
            services.forEach(s -> out.println("  " + s));
            return 0;
        }
        List<String> which = args.isEmpty() ? services : List.of(args.get(0));
        for (String s : which) {
            if (!services.contains(s)) {
                err.println("Can't find service: " + s);
                return 1;
            }
            if (args.isEmpty()) {
                out.println("-------------------------------------------------------------------------------");
                out.println("DUMP OF SERVICE " + s + ":");
            }
            switch (s) {
                case "activity" -> {
                    if (args.size() < 2 || !args.get(1).equals("processes")) {
                        dumpActivity();
                    }
                    out.print(device.am.processes.dump());
                }
                case "package" -> dumpPackages(args.size() > 1 ? args.get(1) : null);
                case "rtdroid.proxy" -> {
                    ProxyCore core = device.am.services.proxy();
                    out.println(core == null ? "proxy not running" : core.statsJson());
                }
                case "broadcasts" -> out.println(device.am.broadcasts.statsJson());
                case "binder" -> out.print(device.binder.dump());
                case "adb" -> {
                    long[] c = device.server == null ? new long[3] : device.server.counters();
                    out.println("ADB MANAGER (dumpsys adb)");
                    out.println("  authorised connections: " + c[0]);
                    out.println("  refused keys: " + c[1]);
                    out.println("  protocol errors: " + c[2]);
                }
                default -> {
                }
            }
        }
        return 0;
    }

    private void dumpActivity() throws CellException {
        String fg = MainThread.call(() -> {
            android.content.ComponentName top = device.am.activities.foregroundComponent();
            return top == null ? null : top.getPackageName() + "/" + top.getClassName();
        });
        out.println("ACTIVITY MANAGER (dumpsys activity)");
        out.println("  mResumedActivity: " + (fg == null ? "null" : fg));
        out.println("  Apps (state, crashes, last crash):");
        for (InstalledApp app : device.am.packages.installed()) {
            out.println("    " + app.packageName + (app.system ? " (system)" : "") + ": " + app.state
                    + " crashes=" + app.crashes + (app.crash == null ? "" : " lastCrash=" + firstLine(app.crash)));
        }
    }

    private void dumpPackages(String only) {
        out.println("PACKAGE MANAGER (dumpsys package)");
        for (InstalledApp app : device.am.packages.installed()) {
            if (only != null && !only.equals(app.packageName)) {
                continue;
            }
            out.println("  Package [" + app.packageName + "]");
            out.println("    userId=" + app.uid + (app.dataDir == null ? "" : " dataDir=" + app.dataDir));
            if (app.bundle != null) {
                out.println("    versionCode=" + app.bundle.versionCode + " versionName=" + app.bundle.versionName);
                out.println("    channels=" + app.bundle.channels);
            }
            out.println("    signature (SHA-256)=" + app.certificateSha256);
            out.println("    grantedPermissions=" + new TreeSet<>(app.permissions));
        }
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    // ------------------------------------------------------------------ logcat

    private int logcat(List<String> args) throws IOException {
        boolean dump = false;
        int tail = -1;
        Map<String, Character> filters = new LinkedHashMap<>();
        char otherLevel = 'V';
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            switch (a) {
                case "-d" -> dump = true;
                case "-t" -> {
                    tail = Integer.parseInt(value(args, ++i, a));
                    dump = true;
                }
                case "-s" -> otherLevel = 'S';
                case "-v" -> value(args, ++i, a); // one format: logcat's brief, with the app
                case "-c" -> {
                    return 0; // the log is a ring; nothing to clear by hand
                }
                default -> {
                    int colon = a.lastIndexOf(':');
                    if (a.startsWith("-") || colon <= 0 || colon != a.length() - 2) {
                        err.println("logcat: unknown argument '" + a + "' (-d, -t N, -s, TAG:LEVEL)");
                        return 1;
                    }
                    String tag = a.substring(0, colon);
                    if (tag.equals("*")) {
                        otherLevel = a.charAt(colon + 1);
                    } else {
                        filters.put(tag, a.charAt(colon + 1));
                    }
                }
            }
        }
        long since = 0;
        if (tail > 0) {
            since = Math.max(0, CellLog.lastSeq() - tail);
        }
        while (true) {
            List<CellLog.Entry> entries = CellLog.since(since, 2000);
            for (CellLog.Entry e : entries) {
                since = e.seq();
                char min = filters.getOrDefault(e.tag(), otherLevel);
                if (rank(e.level()) >= rank(min)) {
                    out.println(e);
                }
            }
            out.flush();
            if (dump && entries.size() < 2000) {
                return 0;
            }
            if (entries.isEmpty()) {
                if (channel.clientGone()) {
                    return 0;
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return 0;
                }
            }
        }
    }

    private static int rank(char level) {
        return "VDIWEFS".indexOf(Character.toUpperCase(level == 'A' ? 'F' : level));
    }

    // ------------------------------------------------------------------ screencap and files

    private int screencap(List<String> args) throws IOException, CellException {
        boolean png = args.contains("-p");
        String file = args.stream().filter(a -> !a.startsWith("-")).findFirst().orElse(null);
        if (file == null && !png) {
            err.println("screencap: this device writes PNG only: use screencap -p");
            return 1;
        }
        byte[] image = device.ui.screenshot();
        if (file == null) {
            channel.stdout().write(image);
            return 0;
        }
        Path p = device.resolve(file);
        if (p == null) {
            err.println("screencap: " + file + ": Permission denied");
            return 1;
        }
        Files.write(p, image);
        return 0;
    }

    private int rm(List<String> args) throws IOException {
        boolean force = args.stream().anyMatch(a -> a.startsWith("-") && a.contains("f"));
        int status = 0;
        for (String a : args) {
            if (a.startsWith("-")) {
                continue;
            }
            Path p = device.resolve(a);
            if (p == null || (!Files.exists(p) && !force) || (p != null && Files.isDirectory(p))) {
                if (p == null || !force) {
                    err.println("rm: " + a + ": " + (p == null ? "Permission denied"
                            : Files.isDirectory(p) ? "Is a directory" : "No such file or directory"));
                    status = 1;
                }
                continue;
            }
            Files.deleteIfExists(p);
        }
        return status;
    }

    private int ls(List<String> args) throws IOException {
        String path = args.stream().filter(a -> !a.startsWith("-")).findFirst().orElse("/data/local/tmp");
        Path p = device.resolve(path);
        if (p == null || !Files.exists(p)) {
            err.println("ls: " + path + ": " + (p == null ? "Permission denied" : "No such file or directory"));
            return 1;
        }
        if (!Files.isDirectory(p)) {
            out.println(path);
            return 0;
        }
        try (Stream<Path> s = Files.list(p)) {
            s.map(x -> x.getFileName().toString()).sorted().forEach(out::println);
        }
        return 0;
    }

    // ------------------------------------------------------------------ parsing

    private static String value(List<String> args, int i, String option) {
        if (i >= args.size()) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args.get(i);
    }

    /** A shell's words: single and double quotes, backslash escapes; ';' separates commands. */
    static List<List<String>> parse(String line) {
        List<List<String>> commands = new ArrayList<>();
        List<String> argv = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote == '\'') {
                if (c == '\'') {
                    quote = 0;
                } else {
                    word.append(c);
                }
            } else if (quote == '"') {
                if (c == '"') {
                    quote = 0;
                } else if (c == '\\' && i + 1 < line.length() && "\"\\$`".indexOf(line.charAt(i + 1)) >= 0) {
                    word.append(line.charAt(++i));
                } else {
                    word.append(c);
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                inWord = true;
            } else if (c == '\\' && i + 1 < line.length()) {
                word.append(line.charAt(++i));
                inWord = true;
            } else if (c == ';' || c == '\n') {
                if (inWord) {
                    argv.add(word.toString());
                }
                word.setLength(0);
                inWord = false;
                commands.add(argv);
                argv = new ArrayList<>();
            } else if (Character.isWhitespace(c)) {
                if (inWord) {
                    argv.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
            } else {
                word.append(c);
                inWord = true;
            }
        }
        if (inWord) {
            argv.add(word.toString());
        }
        commands.add(argv);
        return commands;
    }
}
