package org.rtdroid.rtcell.agent;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Builds test applications the way a developer does: Java source compiled against the runtime with
 * the JDK's compiler, packed in a jar. The classes exist ONLY in that jar, so a deployment that
 * works proves the agent's per-app class loader loaded them from the bundle.
 */
final class TestApps {
    static final String ECHO_SOURCE = """
            package rtapp.echo;

            import org.rtdroid.runtime.channel.RealtimeIntent;
            import org.rtdroid.runtime.component.RealtimeReceiver;
            import org.rtdroid.runtime.xcc.CrossContextClosure;
            import org.rtdroid.runtime.xcc.CrossContextIntent;
            import org.rtdroid.runtime.xcc.CrossContextPublisher;

            public final class Echo extends RealtimeReceiver implements CrossContextClosure {
                private CrossContextPublisher replies;
                private RealtimeIntent request;

                @Override public void onCreate() { replies = crossContextPublisher(applicationName()); }
                @Override public void onReceive(RealtimeIntent intent) { request = intent; replies.publish(this); }
                @Override public void onClean() { request = null; }
                @Override public void genMsg(CrossContextIntent out) {
                    out.setAction("org.rtdroid.echo.PONG");
                    out.setSenderPriority(request.arg1);
                    out.setCorrelationId(request.correlationId());
                    out.setPayload(request.payload(), 0, request.payloadLength());
                    out.setRtReceiveNanos(request.crossContextReceiveNanos());
                }
            }
            """;

    static final String MANIFEST = """
            <?xml version="1.0" encoding="UTF-8"?>
            <manifest versionCode="%4$d">
              <application name="%1$s">
                <receiver name="rtapp.echo.Echo" priority="40">
                  <memSizes total="%2$s" persistent="4K" release="%3$s"/>
                  <intent-filter role="subscriber" count="1"><action name="%1$s"/></intent-filter>
                  <intent-filter role="publisher" count="1"><action name="%1$s"/></intent-filter>
                </receiver>
                <channel name="%1$s" type="cross-context" direction="both" capacity="8">
                  <data size="224B"/>
                  <allow sender="*"/>
                </channel>
              </application>
            </manifest>
            """;

    /** A service whose task throws at its third release: a component that fails and must say why. */
    static final String FAILING_SOURCE = """
            package rtapp.failing;

            import org.rtdroid.runtime.component.PeriodicTask;
            import org.rtdroid.runtime.component.RealtimeService;

            public final class Sensor extends RealtimeService {
                private long calls;

                @Override public void onStartCommand() {
                    registerTask("sample", new PeriodicTask() {
                        @Override public void onRelease() {
                            if (++calls == 3) {
                                read("electrode 3\\nopen");
                            }
                        }
                    });
                }

                private static void read(String why) { throw new IllegalStateException("sensor gone: " + why); }
            }
            """;

    static final String FAILING_MANIFEST = """
            <?xml version="1.0" encoding="UTF-8"?>
            <manifest versionCode="1">
              <application name="%1$s">
                <service name="rtapp.failing.Sensor" priority="40">
                  <memSizes total="12K" persistent="4K" release="4K"/>
                  <periodic-task name="sample"><memSizes release="4K"/><release periodic="2ms"/></periodic-task>
                </service>
              </application>
            </manifest>
            """;

    /** A service with one periodic task that does nothing: a running app to leave undisturbed. */
    static final String TICKER_SOURCE = """
            package rtapp.ticker;

            import org.rtdroid.runtime.component.PeriodicTask;
            import org.rtdroid.runtime.component.RealtimeService;

            public final class Ticker extends RealtimeService {
                @Override public void onStartCommand() {
                    registerTask("tick", new PeriodicTask() {
                        @Override public void onRelease() { }
                    });
                }
            }
            """;

    /** The ticker with a declared worst-case execution time, pinned to the cell's first CPU for the
     *  analysis (whatever the test machine's CPU count): what admission control analyses. */
    static final String TICKER_MANIFEST = """
            <?xml version="1.0" encoding="UTF-8"?>
            <manifest versionCode="1">
              <application name="%1$s">
                <service name="rtapp.ticker.Ticker" priority="%2$d">
                  <memSizes total="12K" persistent="4K" release="4K"/>
                  <periodic-task name="tick" wcet="%3$s" cpu="0">
                    <memSizes release="4K"/><release periodic="%4$s"/>
                  </periodic-task>
                </service>
              </application>
            </manifest>
            """;

    private TestApps() {
    }

    static byte[] tickerJar(Path workDir) throws IOException {
        return compileJar("rtapp/ticker/Ticker.java", TICKER_SOURCE, workDir);
    }

    static byte[] tickerManifest(String app, int priority, String wcet, String period) {
        return String.format(TICKER_MANIFEST, app, priority, wcet, period).getBytes(StandardCharsets.UTF_8);
    }

    static byte[] failingJar(Path workDir) throws IOException {
        return compileJar("rtapp/failing/Sensor.java", FAILING_SOURCE, workDir);
    }

    static byte[] failingManifest(String app) {
        return String.format(FAILING_MANIFEST, app).getBytes(StandardCharsets.UTF_8);
    }

    /** An echo app answering on the cross-context channel named like its application. */
    static byte[] echoJar(Path workDir) throws IOException {
        return compileJar("rtapp/echo/Echo.java", ECHO_SOURCE, workDir);
    }

    static byte[] manifest(String app) {
        return versioned(app, 1);
    }

    /** The echo app's manifest at {@code versionCode} = {@code version}. */
    static byte[] versioned(String app, int version) {
        return String.format(MANIFEST, app, "12K", "8K", version).getBytes(StandardCharsets.UTF_8);
    }

    /** Total 4K + release: a release scope of {@code releaseBytes}. */
    static byte[] manifest(String app, long releaseBytes) {
        return String.format(MANIFEST, app, (4096 + releaseBytes) + "B", releaseBytes + "B", 1).getBytes(StandardCharsets.UTF_8);
    }

    static byte[] compileJar(String path, String source, Path workDir) throws IOException {
        Path src = workDir.resolve("src").resolve(path);
        Files.createDirectories(src.getParent());
        Files.writeString(src, source);
        Path classes = Files.createDirectories(workDir.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int rc = javac.run(null, null, null, "-d", classes.toString(), "-cp", System.getProperty("java.class.path"),
                src.toString());
        if (rc != 0) {
            throw new IllegalStateException("test app did not compile");
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JarOutputStream jar = new JarOutputStream(bytes); Stream<Path> files = Files.walk(classes)) {
            List<Path> list = files.filter(Files::isRegularFile).toList();
            for (Path f : list) {
                jar.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                jar.write(Files.readAllBytes(f));
                jar.closeEntry();
            }
        }
        return bytes.toByteArray();
    }
}
