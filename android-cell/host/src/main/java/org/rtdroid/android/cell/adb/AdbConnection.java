package org.rtdroid.android.cell.adb;

import org.rtdroid.android.cell.os.CellLog;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One client connection (an adb server that ran {@code adb connect}): CNXN, then AUTH until the
 * client signs this side's token with an authorised key, then streams. Until then nothing but
 * CNXN and AUTH is answered; a key the cell does not hold is refused, logged with its
 * fingerprint and counted, and the client shows the device as {@code unauthorized}.
 */
final class AdbConnection implements Runnable {
    static final String TAG = "adbd";
    private static final SecureRandom RANDOM = new SecureRandom();
    private final Socket socket;
    private final AdbServer server;
    private final OutputStream out;
    private final Map<Integer, AdbStream> streams = new ConcurrentHashMap<>();
    private byte[] token;
    private volatile boolean online;
    private volatile int maxPayload = AdbMessage.MAX_PAYLOAD;
    private int nextLocalId = 1;
    private String who = "?";

    AdbConnection(Socket socket, AdbServer server) throws IOException {
        this.socket = socket;
        this.server = server;
        this.out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
    }

    int maxPayload() {
        return maxPayload;
    }

    @Override
    public void run() {
        String peer = String.valueOf(socket.getRemoteSocketAddress());
        try (socket) {
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 64 * 1024));
            AdbMessage m;
            while ((m = AdbMessage.read(in)) != null) {
                handle(m);
            }
        } catch (AdbMessage.AdbProtocolException e) {
            server.protocolErrors.incrementAndGet();
            CellLog.w(TAG, "connection from " + peer + " dropped: " + e.getMessage());
        } catch (IOException e) {
            // the client went away
        } finally {
            streams.values().forEach(AdbStream::closedByPeer);
            streams.clear();
        }
    }

    private void handle(AdbMessage m) throws IOException {
        switch (m.command()) {
            case AdbMessage.A_CNXN -> {
                if (Integer.compareUnsigned(m.arg0(), AdbMessage.A_VERSION_MIN) < 0) {
                    throw new AdbMessage.AdbProtocolException(String.format("protocol version 0x%08x, need 0x%08x",
                            m.arg0(), AdbMessage.A_VERSION_MIN));
                }
                maxPayload = Math.max(4096, Math.min(AdbMessage.MAX_PAYLOAD, m.arg1()));
                online = false;
                sendToken();
            }
            case AdbMessage.A_AUTH -> auth(m);
            case AdbMessage.A_OPEN -> {
                if (online) {
                    open(m);
                }
            }
            case AdbMessage.A_OKAY -> {
                AdbStream s = streams.get(m.arg1());
                if (s != null && online) {
                    s.okay();
                }
            }
            case AdbMessage.A_WRTE -> {
                AdbStream s = streams.get(m.arg1());
                if (s != null && online) {
                    s.received(m.payload());
                }
            }
            case AdbMessage.A_CLSE -> {
                AdbStream s = streams.remove(m.arg1());
                if (s != null) {
                    s.closedByPeer();
                }
            }
            default -> throw new AdbMessage.AdbProtocolException("unexpected " + AdbMessage.name(m.command()));
        }
    }

    private void sendToken() throws IOException {
        token = new byte[20];
        RANDOM.nextBytes(token);
        send(AdbMessage.A_AUTH, AdbMessage.AUTH_TOKEN, 0, token);
    }

    private void auth(AdbMessage m) throws IOException {
        if (token == null || online) {
            return;
        }
        switch (m.arg0()) {
            case AdbMessage.AUTH_SIGNATURE -> {
                AdbKeys.Key key = server.keys().verify(token, m.payload());
                if (key != null) {
                    online = true;
                    who = key.comment().isEmpty() ? key.fingerprint() : key.comment();
                    server.connections.incrementAndGet();
                    CellLog.i(TAG, "adb connection from " + socket.getRemoteSocketAddress() + " authorised (key "
                            + key.fingerprint() + " " + key.comment() + ")");
                    send(AdbMessage.A_CNXN, AdbMessage.A_VERSION, AdbMessage.MAX_PAYLOAD,
                            server.banner().getBytes(StandardCharsets.UTF_8));
                } else {
                    sendToken(); // the client tries its next key, then offers its public key
                }
            }
            case AdbMessage.AUTH_RSAPUBLICKEY -> {
                String line = new String(m.payload(), StandardCharsets.UTF_8).replace("\0", "").trim();
                String id;
                try {
                    AdbKeys.Key k = AdbKeys.parse(line);
                    id = k.fingerprint() + " " + k.comment();
                } catch (IllegalArgumentException e) {
                    id = "(not a key: " + e.getMessage() + ")";
                }
                server.refused.incrementAndGet();
                CellLog.w(TAG, "adb key " + id + " from " + socket.getRemoteSocketAddress()
                        + " is not authorised: refused (authorised keys: " + server.keysFile() + ")");
            }
            default -> throw new AdbMessage.AdbProtocolException("AUTH type " + m.arg0());
        }
    }

    private void open(AdbMessage m) throws IOException {
        String service = new String(m.payload(), StandardCharsets.UTF_8);
        int nul = service.indexOf('\0');
        if (nul >= 0) {
            service = service.substring(0, nul);
        }
        AdbService handler = server.device().open(service);
        if (handler == null) {
            CellLog.w(TAG, "service '" + service + "' is not offered");
            send(AdbMessage.A_CLSE, 0, m.arg0(), new byte[0]);
            return;
        }
        int id;
        synchronized (this) {
            id = nextLocalId++;
        }
        AdbStream s = new AdbStream(this, id, m.arg0());
        streams.put(id, s);
        send(AdbMessage.A_OKAY, id, m.arg0(), new byte[0]);
        String name = service;
        Thread.ofVirtual().name("adb-" + name.split("[: ,]")[0]).start(() -> {
            try {
                handler.run(s);
            } catch (IOException e) {
                // the client closed the stream
            } catch (Exception e) {
                CellLog.e(TAG, "adb service '" + name + "' for " + who + " failed", e);
            } finally {
                s.close();
            }
        });
    }

    void closeStream(AdbStream s) {
        if (streams.remove(s.localId) != null) {
            try {
                send(AdbMessage.A_CLSE, s.localId, s.remoteId, new byte[0]);
            } catch (IOException ignored) {
                // connection gone
            }
        }
    }

    void send(int command, int arg0, int arg1, byte[] payload) throws IOException {
        synchronized (out) {
            new AdbMessage(command, arg0, arg1, payload).write(out);
            out.flush();
        }
    }
}
