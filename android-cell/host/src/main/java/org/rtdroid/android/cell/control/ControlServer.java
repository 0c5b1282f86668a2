package org.rtdroid.android.cell.control;

import org.rtdroid.android.cell.am.CellActivityManager;
import org.rtdroid.android.cell.os.CellException;
import org.rtdroid.android.cell.os.CellLog;
import org.rtdroid.android.cell.os.MainThread;
import org.rtdroid.android.cell.pm.InstalledApp;


import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;

import org.rtdroid.android.proxy.LatencyLog;
import org.rtdroid.android.proxy.ProxyCore;
import org.rtdroid.json.JsonWriter;

/**
 * The cell's control interface for the CLI and the Robot suites: JSON over HTTP on 127.0.0.1
 * only (docs/android-cell.md, "Control interface"). Routes requests to the activity
 * manager, {@link UiAutomation} and the proxy; errors are 4xx/5xx with {"error": "..."}.
 */
public final class ControlServer {
    static final int MAX_BODY_BYTES = 64 * 1024;
    private final HttpServer http;
    private final CellActivityManager am;
    private final UiAutomation ui;
    private final Cell cell;
    /** Null: every loopback client is served (no adb keys); else what each request must carry. */
    private final byte[] token;

    /** What the control interface reports of the cell's life, and asks of it (the cell host). */
    public interface Cell {
        long uptimeMillis();

        /** Start to READY. */
        long startupMillis();

        /** Start to the framework up. */
        long frameworkMillis();

        /** The region file's path. */
        String region();

        void requestStop(String why);
    }

    private ControlServer(HttpServer http, CellActivityManager am, UiAutomation ui, Cell cell, String token) {
        this.http = http;
        this.am = am;
        this.ui = ui;
        this.cell = cell;
        this.token = token == null ? null : ("Bearer " + token).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * {@code token}: when not null, every request must carry {@code Authorization: Bearer TOKEN};
     * the cell hands the token only to authorised adb clients ({@code adb shell cmd control
     * token}), so the control port asks what adb asks: a key in the cell's authorised keys.
     */
    public static ControlServer start(int port, CellActivityManager am, UiAutomation ui, Cell cell, String token)
            throws IOException {
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
        ControlServer s = new ControlServer(http, am, ui, cell, token);
        http.createContext("/", s::handle);
        http.setExecutor(Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "cell-control");
            t.setDaemon(true);
            return t;
        }));
        http.start();
        return s;
    }

    /** Requests refused for a missing or wrong token. */
    private final java.util.concurrent.atomic.AtomicLong unauthorised = new java.util.concurrent.atomic.AtomicLong();

    public long unauthorised() {
        return unauthorised.get();
    }

    public int port() {
        return http.getAddress().getPort();
    }

    public void stop() {
        http.stop(0);
    }

    private void handle(HttpExchange ex) throws IOException {
        try {
            if (token != null) {
                String auth = ex.getRequestHeaders().getFirst("Authorization");
                if (auth == null || !java.security.MessageDigest.isEqual(token, auth.getBytes(StandardCharsets.US_ASCII))) {
                    unauthorised.incrementAndGet();
                    throw new CellException(401, "unauthorised: the control interface serves holders of an "
                            + "authorised adb key; send 'Authorization: Bearer T' with T from `adb shell cmd control token`");
                }
            }
            route(ex);
        } catch (CellException e) {
            reply(ex, e.status, object("error", e.getMessage()));
        } catch (Throwable t) {
            CellLog.e("ControlServer", "request " + ex.getRequestURI() + " failed", t);
            reply(ex, 500, object("error", "internal error: " + t));
        } finally {
            ex.close();
        }
    }

    private void route(HttpExchange ex) throws Exception {
        String method = ex.getRequestMethod();
        String path = ex.getRequestURI().getPath();
        Map<String, String> query = query(ex.getRequestURI().getRawQuery());
        List<String> parts = Arrays.asList(path.replaceAll("^/+|/+$", "").split("/"));
        String p0 = parts.isEmpty() ? "" : parts.get(0);
        switch (p0) {
            case "state":
                need(method, "GET", path);
                reply(ex, 200, MainThread.call(this::stateJson));
                return;
            case "apps":
                if (parts.size() == 1) {
                    need(method, "GET", path);
                    reply(ex, 200, MainThread.call(this::appsJson));
                    return;
                }
                if (parts.size() == 2 && parts.get(1).equals("install")) {
                    need(method, "POST", path);
                    Map<String, Object> body = body(ex);
                    if (body.containsKey("bundle")) {
                        throw new CellException(400, "the cell installs apps from signed APKs only: send "
                                + "{\"apk\": PATH} (android-cell/apk/cell-apk.sh packs and signs a bundle folder)");
                    }
                    InstalledApp app = am.installApk(Paths.get(str(body, "apk")));
                    reply(ex, 200, appJson(app));
                    return;
                }
                String pkg = parts.get(1);
                if (parts.size() == 2) {
                    if (method.equals("DELETE")) {
                        MainThread.call(() -> {
                            am.uninstall(pkg);
                            return null;
                        });
                        reply(ex, 200, object("uninstalled", pkg));
                        return;
                    }
                    need(method, "GET", path);
                    reply(ex, 200, MainThread.call(() -> appJson(am.packages.require(pkg))));
                    return;
                }
                if (parts.size() == 3 && parts.get(2).equals("launch")) {
                    need(method, "POST", path);
                    String activity = am.startActivity(pkg, null);
                    reply(ex, 200, new JsonWriter().beginObject().field("launched", pkg).field("activity", activity)
                            .endObject().toString());
                    return;
                }
                if (parts.size() == 3 && parts.get(2).equals("stop")) {
                    need(method, "POST", path);
                    MainThread.call(() -> {
                        am.stop(pkg);
                        return null;
                    });
                    reply(ex, 200, object("stopped", pkg));
                    return;
                }
                break;
            case "ui":
                if (parts.size() == 2) {
                    ui(ex, method, parts.get(1), query);
                    return;
                }
                break;
            case "screenshot":
                need(method, "GET", path);
                byte[] png = ui.screenshot();
                ex.getResponseHeaders().set("Content-Type", "image/png");
                ex.sendResponseHeaders(200, png.length);
                try (OutputStream o = ex.getResponseBody()) {
                    o.write(png);
                }
                return;
            case "proxy":
                if (parts.size() == 2 && parts.get(1).equals("stats")) {
                    need(method, "GET", path);
                    reply(ex, 200, proxy().statsJson());
                    return;
                }
                if (parts.size() == 2 && parts.get(1).equals("events")) {
                    need(method, "GET", path);
                    reply(ex, 200, proxy().eventsJson(parseLong(query.getOrDefault("since", "0"), "since")));
                    return;
                }
                break;
            case "logcat":
                need(method, "GET", path);
                long since = parseLong(query.getOrDefault("since", "0"), "since");
                reply(ex, 200, logcatJson(since));
                return;
            case "latency":
                if (method.equals("DELETE")) {
                    ProxyCore core = am.services.proxy();
                    if (core != null) {
                        core.latency().clear();
                    }
                    reply(ex, 200, new JsonWriter().beginObject().field("cleared", true).endObject().toString());
                    return;
                }
                need(method, "GET", path);
                reply(ex, 200, latencyJson());
                return;
            case "shutdown":
                need(method, "POST", path);
                reply(ex, 200, new JsonWriter().beginObject().field("shutdown", true).endObject().toString());
                cell.requestStop("POST /shutdown");
                return;
            default:
                break;
        }
        throw new CellException(404, "no such endpoint: " + method + " " + path);
    }

    // ------------------------------------------------------------------ UI events

    private void ui(HttpExchange ex, String method, String op, Map<String, String> query) throws Exception {
        switch (op) {
            case "click":
                need(method, "POST", "/ui/click");
                reply(ex, 200, ui.click(str(body(ex), "id")));
                return;
            case "seekbar": {
                need(method, "POST", "/ui/seekbar");
                Map<String, Object> body = body(ex);
                String id = str(body, "id");
                reply(ex, 200, ui.seekBar(id, num(body, "progress")));
                return;
            }
            case "switch": {
                need(method, "POST", "/ui/switch");
                Map<String, Object> body = body(ex);
                String id = str(body, "id");
                Object checked = body.get("checked");
                if (!(checked instanceof Boolean)) {
                    throw new CellException(400, "body field 'checked' must be true or false");
                }
                reply(ex, 200, ui.setSwitch(id, (Boolean) checked));
                return;
            }
            case "text": {
                need(method, "GET", "/ui/text");
                String id = query.get("id");
                if (id == null || id.isEmpty()) {
                    throw new CellException(400, "query parameter 'id' is required");
                }
                reply(ex, 200, ui.text(id));
                return;
            }
            default:
                throw new CellException(404, "no such UI operation: " + op + " (click, seekbar, switch, text)");
        }
    }

    private ProxyCore proxy() throws CellException {
        ProxyCore core = am.services.proxy();
        if (core == null) {
            throw new CellException(503, "the proxy service is not running");
        }
        return core;
    }

    // ------------------------------------------------------------------ JSON documents

    /** {"name":"value"}: the small answers (errors, uninstalled, stopped). */
    private static String object(String name, String value) {
        return new JsonWriter().beginObject().field(name, value).endObject().toString();
    }

    private String stateJson() {
        JsonWriter w = new JsonWriter(4096).beginObject()
                .field("ready", true)
                .field("sdk", android.os.Build.VERSION.SDK_INT)
                .field("framework", "AOSP " + android.os.Build.VERSION.RELEASE + " (Robolectric android-all) on "
                        + System.getProperty("java.vm.name") + " " + System.getProperty("java.version"))
                .field("pid", ProcessHandle.current().pid())
                .field("uptimeMillis", cell.uptimeMillis())
                .field("startupMillis", cell.startupMillis())
                .field("frameworkMillis", cell.frameworkMillis())
                .field("rssBytes", rssBytes())
                .field("heapUsedBytes", Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory())
                .field("region", cell.region())
                .name("foreground");
        android.content.ComponentName top = am.activities.foregroundComponent();
        if (top == null) {
            w.value((String) null);
        } else {
            w.beginObject().field("package", top.getPackageName()).field("activity", top.getClassName()).endObject();
        }
        writeApps(w.name("apps"));
        ProxyCore core = am.services.proxy();
        return w.rawField("proxy", core == null ? "null" : core.statsJson())
                .rawField("broadcasts", am.broadcasts.statsJson())
                .field("logSeq", CellLog.lastSeq())
                .endObject().toString();
    }

    private String appsJson() {
        return writeApps(new JsonWriter(1024)).toString();
    }

    private JsonWriter writeApps(JsonWriter w) {
        w.beginArray();
        for (InstalledApp app : am.packages.installed()) {
            writeApp(w, app);
        }
        return w.endArray();
    }

    /**
     * Where the app runs: {@code "process": "system_server"}, or its own process's pid, uid, state,
     * starts, last launch and why its last process ended.
     */
    private void writeProcess(JsonWriter w, InstalledApp app) {
        if (!am.processes.hosts(app.packageName)) {
            w.field("process", "system_server");
            return;
        }
        w.name("process").beginObject();
        for (org.rtdroid.android.cell.am.ProcessList.ProcessRecord r : am.processes.records()) {
            if (r.app.packageName.equals(app.packageName)) {
                w.field("pid", r.pid).field("state", r.state.name()).field("starts", r.starts)
                        .field("lastLaunchMillis", r.lastLaunchMillis).field("lastDeath", r.deathReason);
            }
        }
        w.field("uid", app.uid).endObject();
    }

    private String appJson(InstalledApp app) {
        return writeApp(new JsonWriter(), app).toString();
    }

    private JsonWriter writeApp(JsonWriter w, InstalledApp app) {
        w.beginObject()
                .field("package", app.packageName)
                .field("system", app.system)
                .field("state", app.state.name())
                .field("crashes", app.crashes)
                .field("lastCrash", app.crash)
                .field("certificateSha256", app.certificateSha256)
                .field("uid", app.uid)
                .field("dataDir", app.dataDir == null ? null : app.dataDir.toString());
        writeProcess(w, app);
        w.name("permissions").beginArray();
        for (String p : new java.util.TreeSet<>(app.permissions)) {
            w.value(p);
        }
        w.endArray();
        if (app.bundle != null) {
            w.field("versionCode", app.bundle.versionCode)
                    .field("label", app.bundle.label)
                    .field("versionName", app.bundle.versionName)
                    .field("launcher", app.bundle.launcher.className())
                    .name("channels").beginArray();
            for (String channel : app.bundle.channels) {
                w.value(channel);
            }
            w.endArray()
                    .field("activities", app.bundle.activities.size())
                    .field("services", app.bundle.services.size())
                    .field("receivers", app.bundle.receivers.size());
        }
        return w.endObject();
    }

    private static String logcatJson(long since) {
        List<CellLog.Entry> entries = CellLog.since(since, 2000);
        JsonWriter w = new JsonWriter(256 + 160 * entries.size()).beginObject().name("entries").beginArray();
        long last = since;
        for (CellLog.Entry e : entries) {
            last = e.seq();
            w.beginObject().field("seq", e.seq()).field("time", e.time()).field("wallMillis", e.wallMillis())
                    .field("level", String.valueOf(e.level())).field("tag", e.tag()).field("app", e.app())
                    .field("message", e.message()).endObject();
        }
        return w.endArray().field("next", last).endObject().toString();
    }

    private String latencyJson() throws CellException {
        LatencyLog log = proxy().latency();
        long[][] s = log.snapshot();
        JsonWriter w = new JsonWriter(1024 + 64 * s[0].length).beginObject()
                .field("unit", "ns").field("count", log.count()).field("retained", s[0].length);
        String[] names = {"roundTrip", "intentToFrame", "frameToDelivered", "rtShare"};
        w.name("summary").beginObject();
        for (int k = 0; k < names.length; k++) {
            w.rawField(names[k], Percentiles.summaryJson(s[k]));
        }
        w.endObject().rawField("androidShare", Percentiles.summaryJson(Percentiles.sum(s[1], s[2])));
        for (int k = 0; k < names.length; k++) {
            w.name(names[k]).beginArray();
            for (long v : s[k]) {
                w.value(v);
            }
            w.endArray();
        }
        return w.endObject().toString();
    }

    static long rssBytes() {
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException ignored) {
            // not Linux
        }
        return -1;
    }

    // ------------------------------------------------------------------ plumbing

    private static void need(String method, String want, String path) throws CellException {
        if (!method.equals(want)) {
            throw new CellException(405, method + " " + path + " is not supported; use " + want);
        }
    }

    private static Map<String, Object> body(HttpExchange ex) throws IOException, CellException {
        try (InputStream in = ex.getRequestBody()) {
            byte[] b = in.readNBytes(MAX_BODY_BYTES + 1);
            if (b.length > MAX_BODY_BYTES) {
                throw new CellException(413, "request body over " + MAX_BODY_BYTES + " bytes");
            }
            return Json.parseObject(new String(b, StandardCharsets.UTF_8));
        }
    }

    private static String str(Map<String, Object> body, String key) throws CellException {
        Object v = body.get(key);
        if (!(v instanceof String) || ((String) v).isEmpty()) {
            throw new CellException(400, "body field '" + key + "' (a non-empty string) is required");
        }
        return (String) v;
    }

    private static long num(Map<String, Object> body, String key) throws CellException {
        Object v = body.get(key);
        if (!(v instanceof Long)) {
            throw new CellException(400, "body field '" + key + "' (an integer) is required");
        }
        return (Long) v;
    }

    private static long parseLong(String s, String name) throws CellException {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new CellException(400, "query parameter '" + name + "' must be an integer, was '" + s + "'");
        }
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> m = new java.util.LinkedHashMap<>();
        if (raw == null) {
            return m;
        }
        for (String kv : raw.split("&")) {
            int eq = kv.indexOf('=');
            String k = URLDecoder.decode(eq < 0 ? kv : kv.substring(0, eq), StandardCharsets.UTF_8);
            String v = eq < 0 ? "" : URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8);
            m.put(k, v);
        }
        return m;
    }

    private static void reply(HttpExchange ex, int status, String json) throws IOException {
        byte[] b = json.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, b.length);
        try (OutputStream o = ex.getResponseBody()) {
            o.write(b);
        }
    }
}
