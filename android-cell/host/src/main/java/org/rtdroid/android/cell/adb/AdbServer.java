package org.rtdroid.android.cell.adb;

import org.rtdroid.android.cell.os.CellLog;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The device side of adb (adbd's part of the system server): the adb protocol on a loopback TCP
 * port, so that the stock client works unchanged ({@code adb connect 127.0.0.1:PORT}). Clients
 * authenticate with the RSA keys of {@code ~/.android/adbkey} against the cell's authorised-keys
 * file; the streams they open reach {@link AdbDevice}'s services.
 */
public final class AdbServer {
    private final ServerSocket socket;
    private final AdbDevice device;
    private final Path keysFile;
    private final AdbKeys keys;
    final AtomicLong connections = new AtomicLong();
    final AtomicLong refused = new AtomicLong();
    final AtomicLong protocolErrors = new AtomicLong();

    private AdbServer(ServerSocket socket, AdbDevice device, Path keysFile, AdbKeys keys) {
        this.socket = socket;
        this.device = device;
        this.keysFile = keysFile;
        this.keys = keys;
    }

    /** Listens on 127.0.0.1:{@code port} (0: a free port); {@code keysFile} null or missing authorises nobody. */
    public static AdbServer start(int port, AdbDevice device, Path keysFile) throws IOException {
        AdbKeys keys = AdbKeys.load(keysFile);
        if (keys.size() == 0) {
            CellLog.w(AdbConnection.TAG, "no authorised adb keys (" + (keysFile == null ? "no --adb-keys" : keysFile)
                    + "): every adb client is refused");
        }
        ServerSocket ss = new ServerSocket();
        ss.setReuseAddress(true);
        ss.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
        AdbServer s = new AdbServer(ss, device, keysFile, keys);
        device.server = s;
        Thread t = new Thread(s::accept, "adbd");
        t.setDaemon(true);
        t.start();
        return s;
    }

    public int port() {
        return socket.getLocalPort();
    }

    public void stop() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    /** {authorised connections, refused keys, protocol errors} since start. */
    public long[] counters() {
        return new long[] {connections.get(), refused.get(), protocolErrors.get()};
    }

    AdbKeys keys() {
        return keys;
    }

    Path keysFile() {
        return keysFile;
    }

    AdbDevice device() {
        return device;
    }

    /** The CNXN banner: the device's identity and the protocol features it speaks. */
    String banner() {
        return "device::ro.product.name=rtdroid_cell;ro.product.model=RTDroid_Android_cell;ro.product.device=rtdroid;"
                + "features=" + AdbDevice.FEATURES;
    }

    private void accept() {
        while (!socket.isClosed()) {
            try {
                Socket c = socket.accept();
                c.setTcpNoDelay(true);
                Thread.ofVirtual().name("adb-connection").start(new AdbConnection(c, this));
            } catch (IOException e) {
                if (!socket.isClosed()) {
                    CellLog.w(AdbConnection.TAG, "accept failed: " + e.getMessage());
                }
            }
        }
    }
}
