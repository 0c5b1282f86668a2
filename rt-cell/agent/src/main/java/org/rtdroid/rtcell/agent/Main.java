package org.rtdroid.rtcell.agent;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;
import org.rtdroid.bridge.Region;
import org.rtdroid.bridge.RegionFormatException;
import org.rtdroid.bridge.RegionMemory;
import org.rtdroid.bridge.rtproxy.ProxyWarmup;
import org.rtdroid.bridge.rtproxy.RtProxy;
import org.rtdroid.runtime.boot.CellConfig;
import org.rtdroid.runtime.boot.RuntimeHost;
import org.rtdroid.runtime.boot.RuntimeWarmup;
import org.rtdroid.runtime.os.CpuSet;
import org.rtdroid.runtime.os.FlightRecorder;
import org.rtdroid.runtime.sensor.sim.UinputDevice;
import org.rtdroid.runtime.text.Printable;

/**
 * {@code java --enable-native-access=ALL-UNNAMED -cp 'lib/*' org.rtdroid.rtcell.agent.Main
 * --region PATH|auto|DEVICE@0xADDRESS+BYTES --deploy-key PUB.pem --cpus LIST --budget-bytes N [--deploy DIR]
 * [--state-dir DIR | --state-device DEV] [--await-region]}
 *
 * <p>Console protocol (the board tooling reads it): with {@code --await-region} first {@code rtcell:
 * runtime started; awaiting the region <path> to be formatted}, then {@code rtcell: region <path> attached as peer
 * 0, epoch N}, {@code rtcell: kernel realtime=<0|1> <release>}, a line per deploy and undeploy, and
 * exactly {@code RTCELL READY} once the management ring is served. SIGTERM (or SIGINT): state
 * STOPPING, every application undeployed, exit 0. Exit 2: bad command line; 1: cannot start (among
 * others: a version record in {@code --state-dir} or on {@code --state-device} that is corrupt or
 * cannot be written). The record on a state device is read once the region is attached: a QEMU
 * cell snapshotted while awaiting the region reads what its disk holds after the restore.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err, Path.of("/sys/bus/pci/devices")));
    }

    static int run(String[] args, PrintStream stdout, PrintStream stderr, Path pciDevices) {
        AgentOptions options;
        try {
            options = AgentOptions.parse(args);
        } catch (IllegalArgumentException e) {
            stderr.println("rtcell: " + e.getMessage());
            return 2;
        }
        // Every record one line, whatever it quotes: the host reads this console a line at a time,
        // and a line it parses as a marker (RTCELL READY) is only ever one the agent wrote itself.
        Consumer<String> console = line -> {
            synchronized (stdout) {
                stdout.println(Printable.oneLine(line));
                stdout.flush();
            }
        };
        Path regionPath;
        PublicKey key;
        CpuSet cpus;
        try {
            regionPath = RegionLocator.locate(options.region, pciDevices);
            key = DeployKey.readPublic(options.deployKey);
            cpus = CpuSet.of(options.cpus);
        } catch (IllegalArgumentException | IOException e) {
            stderr.println("rtcell: " + (e instanceof IOException ? "cannot read --deploy-key " + options.deployKey + ": " : "")
                    + e.getMessage());
            return 2;
        }
        DeployedVersions versions;
        try {
            versions = options.stateDevice != null ? DeployedVersions.onDevice(options.stateDevice)
                    : options.stateDir == null ? DeployedVersions.inMemory() : DeployedVersions.open(options.stateDir);
        } catch (IOException e) {
            stderr.println("rtcell: --state-dir " + options.stateDir + ": " + e.getMessage());
            return 1;
        }
        RegionMemory memory;
        try {
            RegionLocator.PhysicalRange physical = RegionLocator.physicalRange(options.region);
            memory = physical == null ? RegionMemory.mapFile(regionPath)
                    : RegionMemory.mapPhysical(physical.device(), physical.address(), physical.bytes());
        } catch (IOException e) {
            stderr.println("rtcell: cannot map region " + regionPath + ": " + e.getMessage());
            return 1;
        }
        // The runtime starts before the region is attached (mlockall, FFM links, the deploy key),
        // so that a QEMU cell snapshotted while awaiting the region resumes with all of it done.
        Path workDir = null;
        RuntimeHost host = null;
        CellDeployments deployments = null;
        CellSensors sensors = null;
        FlightRecorder recorder = null;
        Exception startFailure = null;
        try {
            workDir = Files.createTempDirectory("rtcell-agent-");
            // The runtime's lowest priority is the proxy's: cross-context intents queue there.
            host = RuntimeHost.start(new CellConfig(cpus, options.budgetBytes, RtProxy.PROXY_FIFO_PRIORITY, 98));
            host.setLog(console);
            deployments = new CellDeployments(host, key, workDir, versions);
            console.accept(RuntimeWarmup.run(host, RuntimeWarmup.DEFAULT_RELEASES));
            console.accept(Warmup.deployPath());
            console.accept(ProxyWarmup.run(host.crossContext(), ProxyWarmup.DEFAULT_PASSES));
            console.accept(ThrottleProbe.run(cpus));
            // The simulator's devices exist before any app looks for them (and, on the QEMU board,
            // in the boot snapshot); a kernel without uinput leaves the cell without sensors.
            sensors = CellSensors.open(Path.of(UinputDevice.UINPUT), console);
            if (options.flightRecorderBoundNanos > 0) {
                recorder = CellFlightRecorder.start(options.flightRecorderBoundNanos, FlightRecorder.TRACEFS, workDir, console);
            }
        } catch (IOException | RuntimeException e) {
            startFailure = e;
        }
        Region region;
        try {
            region = options.awaitRegion ? awaitFormatted(memory, regionPath, console)
                    : Region.attachCell(memory, Region.RT_PEER, true);
        } catch (RegionFormatException e) {
            stderr.println("rtcell: cannot attach region " + regionPath + ": " + e.getMessage());
            return 1;
        }
        // attachCell announces READY; the cell is not serving yet, so say so until it is.
        region.setState(Region.STATE_INITIALISING);
        console.accept("rtcell: region " + regionPath + " attached as peer 0, epoch " + region.peerEpoch(Region.RT_PEER));
        console.accept("rtcell: kernel realtime=" + (Agent.kernelRealtime() ? 1 : 0) + " " + Agent.kernelRelease());
        if (recorder != null) {  // said again here: a cell restored from its boot snapshot starts here
            console.accept(CellFlightRecorder.armedLine(recorder));
        }
        if (options.stateDevice != null) {
            try {
                versions.load();
            } catch (IOException e) {
                region.setState(Region.STATE_FAILED);
                stderr.println("rtcell: --state-device " + options.stateDevice + ": " + e.getMessage());
                return 1;
            }
        }
        versions.summary().forEach(line -> console.accept("rtcell: " + line));

        Agent agent;
        try {
            if (startFailure != null) {
                throw startFailure;
            }
            CellProbes probes = options.probesDir == null ? CellProbes.none()
                    : new CellProbes(options.probesDir, options.cpus[0], console);
            agent = new Agent(region, host, deployments, sensors, probes, cpus, console);
        } catch (Exception e) {
            region.setState(Region.STATE_FAILED);
            stderr.println("rtcell: cannot start the runtime: " + e);
            return 1;
        }
        installSignalHandlers(agent);
        if (options.deployDir != null) {
            predeploy(agent, options.deployDir, console);
        }
        console.accept("RTCELL READY");
        agent.serve();
        console.accept("rtcell: stopping: undeploying " + agent.deployments().applications());
        agent.shutdown();
        deleteTree(workDir);
        console.accept("rtcell: stopped");
        return 0;
    }

    /** Polls until the board has formatted the region (the header's magic and CRC check out). */
    private static Region awaitFormatted(RegionMemory memory, Path regionPath, Consumer<String> console) {
        console.accept("rtcell: runtime started; awaiting the region " + regionPath + " to be formatted");
        while (true) {
            try {
                return Region.attachCell(memory, Region.RT_PEER, true);
            } catch (RegionFormatException notYet) {
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw notYet;
                }
            }
        }
    }

    private static void predeploy(Agent agent, Path dir, Consumer<String> console) {
        List<Path> bundles = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, "*.rtb")) {
            s.forEach(bundles::add);
        } catch (IOException e) {
            console.accept("rtcell: --deploy " + dir + ": cannot list: " + e.getMessage());
            return;
        }
        Collections.sort(bundles);
        for (Path b : bundles) {
            try {
                String name = agent.deployments().deploy(null, Files.readAllBytes(b)).name();
                console.accept("rtcell: deploy " + name + ": OK (" + b.getFileName() + ")");
            } catch (DeployRefusal r) {
                console.accept("rtcell: deploy " + b.getFileName() + ": " + ResultCode.name(r.code()) + ": " + r.reason());
            } catch (IOException e) {
                console.accept("rtcell: deploy " + b.getFileName() + ": cannot read: " + e.getMessage());
            }
        }
    }

    private static void installSignalHandlers(Agent agent) {
        for (String name : new String[] {"TERM", "INT"}) {
            try {
                sun.misc.Signal.handle(new sun.misc.Signal(name), sig -> agent.requestStop());
            } catch (IllegalArgumentException e) {
                // signal not available here: the JVM's default handling (exit 143) remains
            }
        }
    }

    private static void deleteTree(Path dir) {
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a leftover temp dir is harmless
        }
    }
}
