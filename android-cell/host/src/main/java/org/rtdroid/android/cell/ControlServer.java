package org.rtdroid.android.cell;

import android.app.Activity;

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
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;

import org.rtdroid.android.proxy.LatencyLog;
import org.rtdroid.android.proxy.ProxyCore;

/**
 * The cell's control interface for the CLI and the Robot suites: JSON over HTTP on 127.0.0.1
 * only (android-cell/docs/manual.md, "Control interface"). Routes requests to the activity
 * manager, {@link UiAutomation} and the proxy; errors are 4xx/5xx with {"error": "..."}.
 */
final class ControlServer {
    static final int MAX_BODY_BYTES = 64 * 1024;
    private final HttpServer http;
    private final CellActivityManager am;
    private final UiAutomation ui;

    private ControlServer(HttpServer http, CellActivityManager am, UiAutomation ui) {
        this.http = http;
        this.am = am;
        this.ui = ui;
    }

    static ControlServer start(int port, CellActivityManager am, UiAutomation ui) throws IOException {
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
        ControlServer s = new ControlServer(http, am, ui);
        http.createContext("/", s::handle);
        http.setExecutor(Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "cell-control");
            t.setDaemon(true);
            return t;
        }));
        http.start();
        return s;
    }

    int port() {
        return http.getAddress().getPort();
    }

    void stop() {
        http.stop(0);
    }

    private void handle(HttpExchange ex) throws IOException {
        try {
            route(ex);
        } catch (CellException e) {
            reply(ex, e.status, "{\"error\":" + Json.quote(e.getMessage()) + "}");
        } catch (Throwable t) {
            CellLog.e("ControlServer", "request " + ex.getRequestURI() + " failed", t);
            reply(ex, 500, "{\"error\":" + Json.quote("internal error: " + t) + "}");
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
                    String bundle = str(body, "bundle");
                    AppBundle b;
                    try {
                        b = AppBundle.read(Paths.get(bundle).toAbsolutePath());
                    } catch (AppBundle.BadBundleException e) {
                        throw new CellException(400, "malformed bundle: " + e.getMessage());
                    }
                    InstalledApp app = MainThread.call(() -> am.install(b));
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
                        reply(ex, 200, "{\"uninstalled\":" + Json.quote(pkg) + "}");
                        return;
                    }
                    need(method, "GET", path);
                    reply(ex, 200, MainThread.call(() -> appJson(am.packages.require(pkg))));
                    return;
                }
                if (parts.size() == 3 && parts.get(2).equals("launch")) {
                    need(method, "POST", path);
                    String activity = MainThread.call(() -> am.launch(pkg).getClass().getName());
                    reply(ex, 200, "{\"launched\":" + Json.quote(pkg) + ",\"activity\":" + Json.quote(activity) + "}");
                    return;
                }
                if (parts.size() == 3 && parts.get(2).equals("stop")) {
                    need(method, "POST", path);
                    MainThread.call(() -> {
                        am.stop(pkg);
                        return null;
                    });
                    reply(ex, 200, "{\"stopped\":" + Json.quote(pkg) + "}");
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
                    reply(ex, 200, "{\"cleared\":true}");
                    return;
                }
                need(method, "GET", path);
                reply(ex, 200, latencyJson());
                return;
            case "shutdown":
                need(method, "POST", path);
                reply(ex, 200, "{\"shutdown\":true}");
                CellHost.requestStop("POST /shutdown");
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

    private String stateJson() {
        StringBuilder sb = new StringBuilder("{");
        sb.append("\"ready\":true");
        sb.append(",\"sdk\":").append(android.os.Build.VERSION.SDK_INT);
        sb.append(",\"framework\":").append(Json.quote("AOSP " + android.os.Build.VERSION.RELEASE
                + " (Robolectric android-all) on " + System.getProperty("java.vm.name") + " "
                + System.getProperty("java.version")));
        sb.append(",\"pid\":").append(ProcessHandle.current().pid());
        sb.append(",\"uptimeMillis\":").append(CellHost.uptimeMillis());
        sb.append(",\"startupMillis\":").append((CellHost.readyNanos - CellHost.startNanos) / 1_000_000);
        sb.append(",\"frameworkMillis\":").append((CellHost.frameworkNanos - CellHost.startNanos) / 1_000_000);
        sb.append(",\"rssBytes\":").append(rssBytes());
        sb.append(",\"heapUsedBytes\":").append(Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory());
        sb.append(",\"region\":").append(Json.quote(System.getProperty(Main.PROP_REGION)));
        sb.append(",\"foreground\":");
        Activity a = am.activities.foreground();
        if (a == null) {
            sb.append("null");
        } else {
            sb.append("{\"package\":").append(Json.quote(am.activities.foregroundApp().packageName))
                    .append(",\"activity\":")
                    .append(Json.quote(a.getClass().getName())).append('}');
        }
        sb.append(",\"apps\":").append(appsJson());
        ProxyCore core = am.services.proxy();
        sb.append(",\"proxy\":").append(core == null ? "null" : core.statsJson());
        sb.append(",\"logSeq\":").append(CellLog.lastSeq());
        return sb.append('}').toString();
    }

    private String appsJson() {
        StringBuilder sb = new StringBuilder("[");
        boolean first = true;
        for (InstalledApp app : am.packages.installed()) {
            if (!first) {
                sb.append(',');
            }
            first = false;
            sb.append(appJson(app));
        }
        return sb.append(']').toString();
    }

    private static String appJson(InstalledApp app) {
        StringBuilder sb = new StringBuilder("{");
        sb.append("\"package\":").append(Json.quote(app.packageName));
        sb.append(",\"system\":").append(app.system);
        sb.append(",\"state\":").append(Json.quote(app.state.name()));
        sb.append(",\"crashes\":").append(app.crashes);
        sb.append(",\"lastCrash\":").append(Json.quote(app.crash));
        if (app.bundle != null) {
            sb.append(",\"label\":").append(Json.quote(app.bundle.label));
            sb.append(",\"versionName\":").append(Json.quote(app.bundle.versionName));
            sb.append(",\"launcher\":").append(Json.quote(app.bundle.launcher.className));
            sb.append(",\"channels\":[");
            for (int i = 0; i < app.bundle.channels.size(); i++) {
                sb.append(i > 0 ? "," : "").append(Json.quote(app.bundle.channels.get(i)));
            }
            sb.append(']');
            sb.append(",\"activities\":").append(app.bundle.activities.size());
            sb.append(",\"services\":").append(app.bundle.services.size());
            sb.append(",\"receivers\":").append(app.bundle.receivers.size());
        }
        return sb.append('}').toString();
    }

    private static String logcatJson(long since) {
        List<CellLog.Entry> entries = CellLog.since(since, 2000);
        StringBuilder sb = new StringBuilder("{\"entries\":[");
        long last = since;
        for (int i = 0; i < entries.size(); i++) {
            CellLog.Entry e = entries.get(i);
            last = e.seq;
            sb.append(i > 0 ? "," : "").append("{\"seq\":").append(e.seq).append(",\"time\":").append(Json.quote(e.time))
                    .append(",\"wallMillis\":").append(e.wallMillis)
                    .append(",\"level\":\"").append(e.level).append("\",\"tag\":").append(Json.quote(e.tag))
                    .append(",\"app\":").append(Json.quote(e.app)).append(",\"message\":").append(Json.quote(e.message))
                    .append('}');
        }
        return sb.append("],\"next\":").append(last).append('}').toString();
    }

    private String latencyJson() throws CellException {
        LatencyLog log = proxy().latency();
        long[][] s = log.snapshot();
        StringBuilder sb = new StringBuilder("{\"unit\":\"ns\",\"count\":").append(log.count())
                .append(",\"retained\":").append(s[0].length);
        String[] names = {"roundTrip", "intentToFrame", "frameToDelivered", "rtShare"};
        sb.append(",\"summary\":{");
        for (int k = 0; k < names.length; k++) {
            sb.append(k > 0 ? "," : "").append('"').append(names[k]).append("\":").append(Percentiles.summaryJson(s[k]));
        }
        sb.append("},\"androidShare\":").append(Percentiles.summaryJson(Percentiles.sum(s[1], s[2])));
        for (int k = 0; k < names.length; k++) {
            sb.append(",\"").append(names[k]).append("\":").append(Arrays.toString(s[k]).replace(" ", ""));
        }
        return sb.append('}').toString();
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
