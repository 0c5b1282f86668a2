package org.rtdroid.rtcell.agent;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.rtdroid.runtime.boot.DeploymentException;
import org.rtdroid.runtime.boot.DeployedApp;
import org.rtdroid.runtime.boot.RuntimeHost;
import org.rtdroid.runtime.boot.ServiceStatus;
import org.rtdroid.runtime.boot.TimelineTrack;
import org.rtdroid.runtime.manifest.Manifest;
import org.rtdroid.runtime.manifest.ManifestException;
import org.rtdroid.runtime.manifest.ManifestParser;
import org.rtdroid.runtime.text.Printable;
import org.rtdroid.runtime.sensor.SensorService;
import org.rtdroid.runtime.validation.SystemModel;

/**
 * Deploys verified bundles into the cell's {@link RuntimeHost}, in this order, each step with its
 * own result code: signature and zip shape ({@link Bundle#verify}); manifest parse and validation
 * ({@link ManifestParser}); application name = bundle name; not already deployed; admission control
 * ({@link Admission}: memory, channel overflow and schedulability of everything deployed plus this
 * bundle, before any of its classes loads); a versionCode, not below the one deployed last
 * ({@link DeployedVersions}) unless the bundle is signed as a downgrade; then a fresh class loader
 * per application (its jar written to a private directory) and {@link RuntimeHost#deploy}, which
 * pre-allocates and starts it.
 *
 * <p>The new version is recorded before the application starts (a cell that dies in between keeps
 * the higher version: the safe side) and put back if it fails to start.
 */
public final class CellDeployments implements Deployments {
    private final RuntimeHost host;
    private final PublicKey deployKey;
    private final Path workDir;
    private final DeployedVersions versions;
    private final Map<String, Deployed> deployed = new LinkedHashMap<>();
    private final Admission admission;
    private int generation;

    private record Deployed(Manifest manifest, long bytes, URLClassLoader loader, Path dir) {}

    /**
     * @param workDir a private, writable directory (the agent's tmpfs); jars and scratch files go here
     * @param versions the version deployed last per application (rollback protection)
     */
    public CellDeployments(RuntimeHost host, PublicKey deployKey, Path workDir, DeployedVersions versions)
            throws IOException {
        this.host = host;
        this.deployKey = deployKey;
        this.workDir = Files.createDirectories(workDir);
        this.versions = versions;
        this.admission = new Admission(host.config(), host::partition);
    }

    /** Memory the deployed applications pre-allocate: scopes plus channel slots. */
    public static long demandBytes(Manifest m) {
        return m.totalScopeBytes() + m.totalChannelBytes();
    }

    /** Bytes of the cell's budget the deployed applications reserved. */
    public long bytesInUse() {
        return host.reservedBytes();
    }

    @Override
    public synchronized Deployment deploy(String expectedName, byte[] bundleBytes) throws DeployRefusal {
        Bundle bundle = Bundle.verify(bundleBytes, deployKey);
        // The name came in the frame: quoted escaped (ManifestException escapes its source name itself).
        String source = (expectedName != null ? expectedName : "bundle") + "/" + Bundle.MANIFEST_ENTRY;
        Manifest manifest;
        try {
            manifest = ManifestParser.parse(source, new ByteArrayInputStream(bundle.manifestXml()));
        } catch (ManifestException e) {
            throw new DeployRefusal(ResultCode.BAD_MANIFEST, e.getMessage(), e);
        } catch (RuntimeException e) {
            throw new DeployRefusal(ResultCode.BAD_MANIFEST, Printable.escape(source) + ":0: <manifest>: " + e, e);
        }
        String name = manifest.name();
        if (expectedName != null && !expectedName.equals(name)) {
            throw new DeployRefusal(ResultCode.BAD_MANIFEST, Printable.escape(source) + ": <application>: name '" + name
                    + "' differs from the bundle name " + Printable.quote(expectedName) + " it was sent as");
        }
        if (deployed.containsKey(name)) {
            throw new DeployRefusal(ResultCode.DUPLICATE, "an application named '" + name
                    + "' is already deployed; undeploy it first");
        }
        // Admission control: the static validation of what runs plus this bundle, before any of its
        // classes loads (RuntimeHost.deploy checks the memory budget and utilization again).
        SystemModel model = admission.check(manifest);
        int version = manifest.versionCode();
        int previous = versions.of(name);
        String problem = manifest.deployProblem();  // the check rtdroid validate makes too
        if (problem != null) {
            throw new DeployRefusal(ResultCode.BAD_MANIFEST, Printable.escape(source) + ": <manifest>: " + problem);
        }
        if (version < previous && !bundle.downgradeAllowed()) {
            throw new DeployRefusal(ResultCode.DOWNGRADE, name + " version " + version + " < deployed " + previous
                    + "; a downgrade needs a bundle signed for it (rtdroid bundle --allow-downgrade)");
        }
        if (version != previous) {
            try {
                versions.set(name, version);
            } catch (IOException e) {
                throw new DeployRefusal(ResultCode.STATE_FAILED, name + " version " + version + " not deployed: "
                        + e.getMessage(), e);
            }
        }
        try {
            start(name, manifest, bundle, model);
        } catch (DeployRefusal r) {
            if (version != previous) {
                try {
                    versions.set(name, previous);
                } catch (IOException e) {
                    // the higher version stays recorded: the safe side of a failed write
                }
            }
            throw r;
        }
        return new Deployment(name, version, previous);
    }

    private void start(String name, Manifest manifest, Bundle bundle, SystemModel model) throws DeployRefusal {
        // RuntimeHost.deploy checks the memory budget (scopes + channels against --budget-bytes)
        // and utilization again before any class of the app is loaded.
        Path dir;
        URLClassLoader loader;
        try {
            dir = Files.createDirectories(workDir.resolve("apps").resolve(name + "-" + (++generation)));
            Path jar = dir.resolve(Bundle.JAR_ENTRY);
            Files.write(jar, bundle.appJar());
            loader = new URLClassLoader("rtapp-" + name, new URL[] {jar.toUri().toURL()},
                    RuntimeHost.class.getClassLoader());
        } catch (IOException e) {
            throw new DeployRefusal(ResultCode.LOAD_FAILED, "cannot stage app.jar under " + workDir + ": " + e.getMessage(), e);
        }
        try {
            host.deploy(manifest, model, loader);
        } catch (ManifestException e) {
            discard(loader, dir);
            throw new DeployRefusal(ResultCode.BAD_MANIFEST, e.getMessage(), e);
        } catch (DeploymentException e) {
            discard(loader, dir);
            throw new DeployRefusal(e.reason().code(), e.getMessage(), e);
        } catch (RuntimeException | LinkageError e) {
            discard(loader, dir);
            throw new DeployRefusal(ResultCode.START_FAILED, "'" + name + "' failed to start: " + e, e);
        }
        deployed.put(name, new Deployed(manifest, demandBytes(manifest), loader, dir));
        admission.admit(name, model);
    }

    /** The version deployed last of {@code app} (kept across undeploys), 0 when none ever was. */
    public int deployedVersion(String app) {
        return versions.of(app);
    }

    @Override
    public synchronized void undeploy(String name) throws DeployRefusal {
        Deployed d = deployed.get(name);
        if (d == null) {
            throw new DeployRefusal(ResultCode.NOT_FOUND, "no application named " + Printable.quote(name) + " is deployed");
        }
        try {
            host.undeploy(name);
        } catch (java.util.NoSuchElementException e) {
            throw new DeployRefusal(ResultCode.NOT_FOUND, e.getMessage(), e);
        } finally {
            deployed.remove(name);
            admission.remove(name);
            discard(d.loader(), d.dir());
        }
    }

    @Override
    public synchronized void undeployAll() {
        List<String> names = new ArrayList<>(deployed.keySet());
        for (int i = names.size() - 1; i >= 0; i--) {
            try {
                undeploy(names.get(i));
            } catch (DeployRefusal | RuntimeException e) {
                // shutting down: keep undeploying the others
            }
        }
    }

    /** The deployed applications' names, in deploy order. */
    public synchronized List<String> applications() {
        return new ArrayList<>(deployed.keySet());
    }

    @Override
    public List<ServiceRow> services() {
        List<ServiceRow> rows = new ArrayList<>();
        for (ServiceStatus s : host.services()) {
            rows.add(new ServiceRow(s.name(), s.state(), s.releases(), s.deadlineMisses(), s.worstLatenessNanos(),
                    s.worstResponseNanos(), admission.wcrtNanos(s.analysisKey()), s.cause(), s.cpu(), s.execution()));
        }
        return rows;
    }

    @Override
    public List<TimelineTrack> timelines() {
        List<TimelineTrack> out = new ArrayList<>();
        for (DeployedApp app : host.apps()) {
            out.addAll(app.timelines());
        }
        return out;
    }

    @Override
    public String sensorDelivery() {
        StringBuilder sb = new StringBuilder();
        for (DeployedApp app : host.apps()) {
            SensorService s = app.sensorService();
            String d = s == null ? "" : s.deliveryLatencies();
            if (!d.isEmpty()) {
                sb.append(sb.isEmpty() ? "" : "; ").append(d);
            }
        }
        return sb.toString();
    }

    private static void discard(URLClassLoader loader, Path dir) {
        try {
            loader.close();
        } catch (IOException ignored) {
            // the jar is deleted below anyway
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // leftovers in the agent's own tmpfs are harmless
        }
    }
}
