package org.rtdroid.android.cell;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;

/**
 * TEST DOUBLE of the Android cell host, used only by tools/rtdroid's lifecycle tests (the real
 * host is android-cell/). Serves GET /state on the control port and prints the ready line.
 */
public final class Main {
    public static void main(String[] args) throws Exception {
        int port = 7411;
        for (int i = 0; i < args.length - 1; i++) if (args[i].equals("--control-port")) port = Integer.parseInt(args[i + 1]);
        if (System.getenv().getOrDefault("FAKE_MODE", "ready").equals("never-ready")) {
            Thread.sleep(Long.MAX_VALUE);
        }
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        s.createContext("/state", x -> {
            byte[] body = "{\"state\":\"ready\"}".getBytes();
            x.sendResponseHeaders(200, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        s.start();
        System.out.println("ANDROID CELL READY port=" + port + " (test double)");
    }
}
