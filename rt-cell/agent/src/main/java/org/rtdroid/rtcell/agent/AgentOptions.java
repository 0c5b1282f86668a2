package org.rtdroid.rtcell.agent;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The agent's command line: {@code --region PATH|auto --deploy-key PUB.pem --cpus LIST
 * --budget-bytes N [--deploy DIR] [--state-dir DIR | --state-device DEV] [--probes DIR] [--await-region]
 * [--flight-recorder BOUND_US]}. Every value is checked; a
 * wrong one is refused with the option, the value and the rule.
 */
public final class AgentOptions {
    public static final String USAGE = "usage: rt-cell-agent --region PATH|auto --deploy-key PUB.pem --cpus LIST"
            + " --budget-bytes N [--deploy DIR] [--state-dir DIR | --state-device DEV] [--probes DIR] [--await-region]"
            + " [--flight-recorder BOUND_US]\n"
            + "  --region        the shared region: a /dev/shm file, /sys/bus/pci/devices/<bdf>/resource2,\n"
            + "                  or 'auto' (the ivshmem PCI device 1af4:1110)\n"
            + "  --deploy-key    the board's Ed25519 public deploy key (PEM, PUBLIC KEY)\n"
            + "  --cpus          CPUs of the RT cell, e.g. 1 or 1,3 or 2-3\n"
            + "  --budget-bytes  memory budget for RT applications (bytes; suffix K, M or G allowed)\n"
            + "  --deploy        a directory of signed *.rtb bundles deployed at boot\n"
            + "  --state-dir     where the cell keeps state across restarts (the version deployed last\n"
            + "                  per application); without it (or --state-device) that record lasts as\n"
            + "                  long as the agent\n"
            + "  --state-device  the same record on a raw block device of the cell's own (a QEMU cell's\n"
            + "                  disk, no file system) or in physical memory of its own\n"
            + "                  (DEVICE@0xADDRESS+BYTES: the Xen RT domain's state bank through /dev/mem),\n"
            + "                  read once the region is attached\n"
            + "  --probes        the cell's characterisation probes (rtdroid-probe, rtjperf.jar), run on\n"
            + "                  request from the management ring\n"
            + "  --await-region  start the runtime first, then wait until the region is formatted\n"
            + "                  (a QEMU RT cell booted once and restored from a snapshot waits here)\n"
            + "  --flight-recorder  record the kernel's scheduling, interrupt and timer events (ftrace) and\n"
            + "                  freeze them at the first periodic release whose response exceeds BOUND_US\n"
            + "                  microseconds or misses its deadline; the trace's end goes to the console";

    public final String region;
    public final Path deployKey;
    public final int[] cpus;
    public final long budgetBytes;
    public final Path deployDir;
    /** Null: the version record is kept in memory only. */
    public final Path stateDir;
    /** Null unless the version record lives on a raw block device or a physical range (then stateDir is null). */
    public final Path stateDevice;
    public final boolean awaitRegion;
    /** The flight recorder's bound on a release's response (ns); 0: not armed. */
    public final long flightRecorderBoundNanos;
    /** Null: the cell carries no characterisation probes. */
    public final Path probesDir;

    private AgentOptions(String region, Path deployKey, int[] cpus, long budgetBytes, Path deployDir,
                         Path stateDir, Path stateDevice, boolean awaitRegion, long flightRecorderBoundNanos,
                         Path probesDir) {
        this.region = region;
        this.deployKey = deployKey;
        this.cpus = cpus;
        this.budgetBytes = budgetBytes;
        this.deployDir = deployDir;
        this.stateDir = stateDir;
        this.stateDevice = stateDevice;
        this.awaitRegion = awaitRegion;
        this.flightRecorderBoundNanos = flightRecorderBoundNanos;
        this.probesDir = probesDir;
    }

    /** @throws IllegalArgumentException naming the option, value and rule */
    public static AgentOptions parse(String[] args) {
        String region = null;
        String key = null;
        String cpus = null;
        String budget = null;
        String deploy = null;
        String state = null;
        String device = null;
        String probes = null;
        boolean awaitRegion = false;
        String recorder = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("-h") || a.equals("--help")) {
                throw new IllegalArgumentException(USAGE);
            }
            if (!a.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument '" + a + "'\n" + USAGE);
            }
            if (a.equals("--await-region")) {
                awaitRegion = true;
                continue;
            }
            String value;
            int eq = a.indexOf('=');
            String opt = eq > 0 ? a.substring(0, eq) : a;
            if (eq > 0) {
                value = a.substring(eq + 1);
            } else {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("option " + opt + " needs a value\n" + USAGE);
                }
                value = args[++i];
            }
            switch (opt) {
                case "--region": region = value; break;
                case "--deploy-key": key = value; break;
                case "--cpus": cpus = value; break;
                case "--budget-bytes": budget = value; break;
                case "--deploy": deploy = value; break;
                case "--state-dir": state = value; break;
                case "--state-device": device = value; break;
                case "--flight-recorder": recorder = value; break;
                case "--probes": probes = value; break;
                default: throw new IllegalArgumentException("unknown option " + opt + "\n" + USAGE);
            }
        }
        if (region == null || region.isEmpty()) {
            throw new IllegalArgumentException("--region is required\n" + USAGE);
        }
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("--deploy-key is required\n" + USAGE);
        }
        if (cpus == null) {
            throw new IllegalArgumentException("--cpus is required\n" + USAGE);
        }
        if (budget == null) {
            throw new IllegalArgumentException("--budget-bytes is required\n" + USAGE);
        }
        if (state != null && state.isEmpty()) {
            throw new IllegalArgumentException("--state-dir '': must name a directory\n" + USAGE);
        }
        if (device != null && device.isEmpty()) {
            throw new IllegalArgumentException("--state-device '': must name a block device\n" + USAGE);
        }
        if (device != null) {
            try {
                RegionLocator.physicalRange(device); // a DEVICE@0xADDRESS+BYTES range must be well formed
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(e.getMessage().replaceFirst("^--region", "--state-device") + "\n" + USAGE);
            }
        }
        if (state != null && device != null) {
            throw new IllegalArgumentException("--state-dir " + state + " and --state-device " + device
                    + ": the version record has one home, give one of them\n" + USAGE);
        }
        return new AgentOptions(region, Path.of(key), parseCpus(cpus), parseBytes(budget),
                deploy == null ? null : Path.of(deploy), state == null ? null : Path.of(state),
                device == null ? null : Path.of(device), awaitRegion,
                recorder == null ? 0 : parseMicros("--flight-recorder", recorder) * 1000,
                probes == null || probes.isEmpty() ? null : Path.of(probes));
    }

    /** A CPU list as the kernel writes it: {@code 1}, {@code 1,3}, {@code 0-2,5}. */
    static int[] parseCpus(String list) {
        List<Integer> out = new ArrayList<>();
        if (list.isEmpty()) {
            throw new IllegalArgumentException("--cpus '' : must name at least one CPU, e.g. 1 or 1,3 or 2-3");
        }
        for (String part : list.split(",", -1)) {
            try {
                int dash = part.indexOf('-');
                int lo = Integer.parseInt(dash < 0 ? part : part.substring(0, dash));
                int hi = dash < 0 ? lo : Integer.parseInt(part.substring(dash + 1));
                if (lo < 0 || hi < lo || hi > 1023) {
                    throw new NumberFormatException();
                }
                for (int c = lo; c <= hi; c++) {
                    if (!out.contains(c)) {
                        out.add(c);
                    }
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--cpus '" + list + "': '" + part
                        + "' is not a CPU number or range within 0..1023 (e.g. 1 or 1,3 or 2-3)");
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Microseconds, digits only, 1..10,000,000 (10 s). */
    static long parseMicros(String option, String s) {
        if (!s.matches("[0-9]{1,8}") || Long.parseLong(s) < 1 || Long.parseLong(s) > 10_000_000) {
            throw new IllegalArgumentException(option + " '" + s + "': must be microseconds, digits only, 1..10000000");
        }
        return Long.parseLong(s);
    }

    static long parseBytes(String s) {
        long mult = 1;
        String digits = s;
        if (!s.isEmpty()) {
            char last = Character.toUpperCase(s.charAt(s.length() - 1));
            if (last == 'K' || last == 'M' || last == 'G') {
                mult = last == 'K' ? 1L << 10 : last == 'M' ? 1L << 20 : 1L << 30;
                digits = s.substring(0, s.length() - 1);
            }
        }
        try {
            long v = Long.parseLong(digits);
            if (v <= 0 || v > (Long.MAX_VALUE / mult)) {
                throw new NumberFormatException();
            }
            return v * mult;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--budget-bytes '" + s + "': must be a positive byte count (suffix K, M or G allowed)");
        }
    }
}
