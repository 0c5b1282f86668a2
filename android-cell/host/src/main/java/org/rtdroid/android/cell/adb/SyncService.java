package org.rtdroid.android.cell.adb;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.stream.Stream;

/**
 * adb's file sync service ({@code sync:}, AOSP file_sync_service): STAT, LIST, SEND (push), RECV
 * (pull) and QUIT, each request an id and a little-endian length. Paths go through
 * {@link AdbDevice#resolve}: only the places Android lets the shell user reach
 * ({@code /data/local/tmp}, {@code /sdcard}); anything else is refused as on a device
 * ({@code Permission denied}) or reads as absent.
 */
final class SyncService implements AdbService {
    static final int MAX_DATA = 64 * 1024;
    static final int MAX_PATH = 1024;
    private static final int S_IFREG = 0100000;
    private static final int S_IFDIR = 0040000;
    private final AdbDevice device;

    SyncService(AdbDevice device) {
        this.device = device;
    }

    @Override
    public void run(AdbStream stream) throws IOException {
        DataInputStream in = new DataInputStream(stream.input());
        OutputStream out = stream.output();
        while (true) {
            String id;
            int len;
            try {
                id = id(in);
                len = le(in);
            } catch (EOFException e) {
                return;
            }
            if (id.equals("QUIT")) {
                return;
            }
            if (len < 0 || len > MAX_PATH) {
                fail(out, "path of " + len + " bytes");
                return;
            }
            String path = new String(in.readNBytes(len), StandardCharsets.UTF_8);
            switch (id) {
                case "STAT" -> stat(out, path);
                case "LIST" -> list(out, path);
                case "SEND" -> send(in, out, path);
                case "RECV" -> recv(out, path);
                default -> {
                    fail(out, "unknown sync request " + id);
                    return;
                }
            }
            out.flush();
        }
    }

    private void stat(OutputStream out, String path) throws IOException {
        Path p = device.resolve(path);
        int mode = 0;
        long size = 0;
        long mtime = 0;
        if (p != null && Files.exists(p)) {
            mode = Files.isDirectory(p) ? S_IFDIR | 0755 : S_IFREG | 0644;
            size = Files.isDirectory(p) ? 4096 : Files.size(p);
            mtime = Files.getLastModifiedTime(p).toMillis() / 1000;
        }
        out.write(header("STAT", mode));
        out.write(le32((int) size));
        out.write(le32((int) mtime));
    }

    private void list(OutputStream out, String path) throws IOException {
        Path dir = device.resolve(path);
        if (dir != null && Files.isDirectory(dir)) {
            try (Stream<Path> s = Files.list(dir)) {
                for (Path p : (Iterable<Path>) s.sorted()::iterator) {
                    byte[] name = p.getFileName().toString().getBytes(StandardCharsets.UTF_8);
                    boolean d = Files.isDirectory(p);
                    out.write(header("DENT", d ? S_IFDIR | 0755 : S_IFREG | 0644));
                    out.write(le32(d ? 4096 : (int) Files.size(p)));
                    out.write(le32((int) (Files.getLastModifiedTime(p).toMillis() / 1000)));
                    out.write(le32(name.length));
                    out.write(name);
                }
            }
        }
        out.write(header("DONE", 0));
        out.write(new byte[12]);
    }

    private void send(DataInputStream in, OutputStream out, String spec) throws IOException {
        int comma = spec.lastIndexOf(',');
        String path = comma < 0 ? spec : spec.substring(0, comma);
        Path target = device.resolve(path);
        Path tmp = null;
        OutputStream file = null;
        String problem = null;
        if (target == null) {
            problem = "couldn't create file: Permission denied (the shell user may write to /data/local/tmp and /sdcard)";
        } else if (Files.isDirectory(target)) {
            problem = "couldn't create file: Is a directory";
        } else {
            Files.createDirectories(target.getParent());
            tmp = Files.createTempFile(target.getParent(), ".push-", ".tmp");
            file = Files.newOutputStream(tmp);
        }
        try {
            while (true) {
                String id = id(in);
                int len = le(in);
                if (id.equals("DONE")) {
                    if (file != null) {
                        file.close();
                        file = null;
                        Files.setLastModifiedTime(tmp, FileTime.fromMillis(Integer.toUnsignedLong(len) * 1000));
                        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                        tmp = null;
                    }
                    break;
                }
                if (!id.equals("DATA") || len < 0 || len > MAX_DATA) {
                    fail(out, "bad push data: " + id + " of " + len + " bytes");
                    throw new AdbMessage.AdbProtocolException("bad sync push data " + id + " " + len);
                }
                byte[] data = in.readNBytes(len);
                if (file != null) {
                    file.write(data);
                }
            }
        } finally {
            if (file != null) {
                file.close();
            }
            if (tmp != null) {
                Files.deleteIfExists(tmp);
            }
        }
        if (problem != null) {
            fail(out, problem);
        } else {
            out.write(header("OKAY", 0));
        }
    }

    private void recv(OutputStream out, String path) throws IOException {
        Path p = device.resolve(path);
        if (p == null || !Files.isRegularFile(p)) {
            fail(out, p == null ? "Permission denied" : "No such file or directory");
            return;
        }
        try (InputStream f = Files.newInputStream(p)) {
            byte[] buf = new byte[MAX_DATA];
            int n;
            while ((n = f.readNBytes(buf, 0, buf.length)) > 0) {
                out.write(header("DATA", n));
                out.write(buf, 0, n);
            }
        }
        out.write(header("DONE", 0));
    }

    private static void fail(OutputStream out, String message) throws IOException {
        byte[] m = message.getBytes(StandardCharsets.UTF_8);
        out.write(header("FAIL", m.length));
        out.write(m);
        out.flush();
    }

    private static String id(DataInputStream in) throws IOException {
        byte[] b = new byte[4];
        in.readFully(b);
        return new String(b, StandardCharsets.US_ASCII);
    }

    private static int le(DataInputStream in) throws IOException {
        return Integer.reverseBytes(in.readInt());
    }

    private static byte[] header(String id, int value) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).put(id.getBytes(StandardCharsets.US_ASCII))
                .putInt(value).array();
    }

    private static byte[] le32(int v) {
        return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v).array();
    }
}
