package org.rtdroid.android.cell;

import org.rtdroid.android.cell.am.ProcessList;
import org.rtdroid.android.cell.os.RealtimeScheduling;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.nio.file.Path;
import java.nio.file.Paths;

import org.junit.runner.JUnitCore;
import org.junit.runner.Request;
import org.junit.runner.Result;
import org.junit.runner.notification.Failure;

/**
 * The Android cell host's entry point:
 * {@code Main --region PATH --control-port PORT [--adb-port PORT --adb-keys FILE] [--sdk 34] [--peer-timeout-ms MS]
 * [--realtime-threads on|off] [--app-process PACKAGE|all]...}.
 *
 * <p>Robolectric builds its sandbox (the AOSP framework classes, instrumented, in their own class
 * loader) around a JUnit test; the host's life is therefore one "test", {@link CellSandbox#serve},
 * that returns when the cell shuts down. Arguments cross into the sandbox as system properties
 * (classes on either side of the sandbox boundary do not share statics).
 */
public final class Main {
    static final String PROP_REGION = "org.rtdroid.cell.region";
    static final String PROP_CONTROL_PORT = "org.rtdroid.cell.controlPort";
    static final String PROP_START_NANOS = "org.rtdroid.cell.startNanos";
    /** The platform certificate's file: --platform-cert, by default from jvm.args (the dist's copy). */
    static final String PROP_PLATFORM_CERT = "org.rtdroid.cell.platformCert";
    /** Its SHA-256 digest (hex), for the sandbox. */
    static final String PROP_PLATFORM_CERT_SHA256 = "org.rtdroid.cell.platformCertSha256";
    /** adb's device side: its loopback port (absent: no adb) and the authorised keys' file. */
    static final String PROP_ADB_PORT = "org.rtdroid.cell.adbPort";
    static final String PROP_ADB_KEYS = "org.rtdroid.cell.adbKeys";
    /** The packages that run each in a process of their own (comma-separated; --app-process). */
    static final String PROP_APP_PROCESSES = "org.rtdroid.cell.appProcesses";
    public static final int SUPPORTED_SDK = 34;

    private Main() {
    }

    public static void main(String[] args) {
        long start = System.nanoTime();
        String region = null;
        Integer port = null;
        int sdk = SUPPORTED_SDK;
        String platformCert = System.getProperty(PROP_PLATFORM_CERT);
        String platformDigest;
        try {
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--region":
                        region = value(args, ++i, a);
                        break;
                    case "--control-port":
                        port = parseInt(value(args, ++i, a), a, 0, 65535);
                        break;
                    case "--adb-port":
                        System.setProperty(PROP_ADB_PORT, Integer.toString(parseInt(value(args, ++i, a), a, 0, 65535)));
                        break;
                    case "--adb-keys": {
                        Path keys = Paths.get(value(args, ++i, a)).toAbsolutePath();
                        if (!Files.isRegularFile(keys)) {
                            throw new IllegalArgumentException("--adb-keys " + keys + " is not a file (one adb public "
                                    + "key per line, as ~/.android/adbkey.pub)");
                        }
                        System.setProperty(PROP_ADB_KEYS, keys.toString());
                        break;
                    }
                    case "--app-process": {
                        String pkg = value(args, ++i, a);
                        if (!pkg.equals(ProcessList.EVERY_APP) && !pkg.matches("[A-Za-z][A-Za-z0-9_]*(\\.[A-Za-z][A-Za-z0-9_]*)+")) {
                            throw new IllegalArgumentException("--app-process '" + pkg + "' is not a package name (or "
                                    + ProcessList.EVERY_APP + ")");
                        }
                        String before = System.getProperty(PROP_APP_PROCESSES, "");
                        System.setProperty(PROP_APP_PROCESSES, before.isEmpty() ? pkg : before + "," + pkg);
                        break;
                    }
                    case "--sdk":
                        sdk = parseInt(value(args, ++i, a), a, 1, 99);
                        break;
                    case "--platform-cert":
                        platformCert = value(args, ++i, a);
                        break;
                    case "--peer-timeout-ms":
                        // the proxy reads it (ProxyContract.PROP_PEER_TIMEOUT_MS)
                        System.setProperty("org.rtdroid.peerTimeoutMs",
                                Integer.toString(parseInt(value(args, ++i, a), a, 100, 600_000)));
                        break;
                    case "--realtime-threads":
                        // RealtimeScheduling reads it: off keeps every thread of the cell at SCHED_OTHER
                        String rt = value(args, ++i, a);
                        if (!rt.equals("on") && !rt.equals("off")) {
                            throw new IllegalArgumentException("--realtime-threads must be on or off, got '" + rt + "'");
                        }
                        System.setProperty(RealtimeScheduling.PROP_REALTIME_THREADS, rt);
                        break;
                    case "-h":
                    case "--help":
                        usage(null);
                        return;
                    default:
                        throw new IllegalArgumentException("unknown argument '" + a + "'");
                }
            }
            if (region == null) {
                throw new IllegalArgumentException("--region PATH is required");
            }
            if (port == null) {
                throw new IllegalArgumentException("--control-port PORT is required (0 picks a free port)");
            }
            if (sdk != SUPPORTED_SDK) {
                throw new IllegalArgumentException("--sdk " + sdk + " is not available: this cell hosts the AOSP "
                        + "framework at SDK " + SUPPORTED_SDK + " only (android-all 14)");
            }
            Path parent = Paths.get(region).toAbsolutePath().getParent();
            if (parent == null || !Files.isDirectory(parent)) {
                throw new IllegalArgumentException("--region " + region + ": directory " + parent + " does not exist");
            }
            platformDigest = platformCert == null ? null : certificateSha256(platformCert);
        } catch (IllegalArgumentException e) {
            usage(e.getMessage());
            System.exit(2);
            return;
        }
        if (System.getProperty("robolectric.offline") == null) {
            System.err.println("warning: robolectric.offline is not set; run with @android-cell/target/dist/jvm.args");
        }
        System.setProperty(PROP_REGION, Paths.get(region).toAbsolutePath().toString());
        System.setProperty(PROP_CONTROL_PORT, Integer.toString(port));
        System.setProperty(PROP_START_NANOS, Long.toString(start));
        if (platformDigest != null) {
            System.setProperty(PROP_PLATFORM_CERT_SHA256, platformDigest);
        } else {
            System.err.println("warning: no --platform-cert: no app is granted "
                    + "org.rtdroid.permission.CROSS_CONTEXT, so no app can reach the proxy");
        }
        // The proxy reads its region from here (on a device: its manifest's meta-data).
        System.setProperty("org.rtdroid.region", Paths.get(region).toAbsolutePath().toString());

        Result result = new JUnitCore().run(Request.method(CellSandbox.class, "serve"));
        if (result.getFailureCount() > 0) {
            for (Failure f : result.getFailures()) {
                System.err.println("android cell failed: " + f.getMessage());
                System.err.println(f.getTrace());
            }
            if (!ShutdownFlag.inShutdownHook()) {
                System.exit(1);
            }
            return;
        }
        System.out.println("ANDROID CELL STOPPED");
        System.out.flush();
        if (!ShutdownFlag.inShutdownHook()) {
            System.exit(0);
        }
    }

    /** SHA-256 of an X.509 certificate's DER encoding (PEM or DER file), as apksigner prints it. */
    static String certificateSha256(String file) {
        try (InputStream in = Files.newInputStream(Paths.get(file))) {
            X509Certificate c = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(c.getEncoded()));
        } catch (IOException e) {
            throw new IllegalArgumentException("--platform-cert " + file + ": cannot read it (" + e + ")");
        } catch (CertificateException e) {
            throw new IllegalArgumentException("--platform-cert " + file + " is not an X.509 certificate (PEM or DER): "
                    + e.getMessage());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String value(String[] args, int i, String name) {
        if (i >= args.length) {
            throw new IllegalArgumentException(name + " needs a value");
        }
        return args[i];
    }

    private static int parseInt(String s, String name, int min, int max) {
        int v;
        try {
            v = Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " '" + s + "' is not a number");
        }
        if (v < min || v > max) {
            throw new IllegalArgumentException(name + " " + v + " must be " + min + ".." + max);
        }
        return v;
    }

    private static void usage(String error) {
        if (error != null) {
            System.err.println("error: " + error);
        }
        System.err.println("usage: java @android-cell/target/dist/jvm.args -cp 'android-cell/target/dist/lib/*' "
                + "org.rtdroid.android.cell.Main --region PATH --control-port PORT [--adb-port PORT "
                + "--adb-keys FILE] [--sdk 34] [--platform-cert CERT.pem] [--peer-timeout-ms MS] [--realtime-threads on|off] "
                + "[--app-process PACKAGE|all]...");
    }
}
