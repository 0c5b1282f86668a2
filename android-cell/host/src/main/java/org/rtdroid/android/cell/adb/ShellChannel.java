package org.rtdroid.android.cell.adb;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A shell command's standard streams over one adb stream. With the shell protocol (feature
 * {@code shell_v2}, AOSP's shell_protocol.h) each piece is a packet of a one-byte id (stdin 0,
 * stdout 1, stderr 2, exit 3, close-stdin 4, window size 5) and a little-endian length, and the
 * exit status reaches the client ({@code adb shell false; echo $?} is 1). Without it ({@code
 * shell:}, {@code exec:}) stdout and stderr are the raw stream and the status is lost, as on a
 * device.
 */
final class ShellChannel {
    static final int ID_STDIN = 0;
    static final int ID_STDOUT = 1;
    static final int ID_STDERR = 2;
    static final int ID_EXIT = 3;
    static final int ID_CLOSE_STDIN = 4;
    private final AdbStream stream;
    private final boolean protocol;
    private final OutputStream out;
    private final OutputStream err;

    ShellChannel(AdbStream stream, boolean protocol) {
        this.stream = stream;
        this.protocol = protocol;
        if (protocol) {
            this.out = new BufferedOutputStream(framed(ID_STDOUT), 16 * 1024);
            this.err = new BufferedOutputStream(framed(ID_STDERR), 4 * 1024);
        } else {
            OutputStream raw = stream.output();
            this.out = raw;
            this.err = raw;
        }
    }

    OutputStream stdout() {
        return out;
    }

    OutputStream stderr() {
        return err;
    }

    boolean clientGone() {
        return stream.isClosed();
    }

    /** Flushes both streams and, with the shell protocol, sends the exit status. */
    void exit(int status) throws IOException {
        err.flush();
        out.flush();
        if (protocol) {
            stream.write(packet(ID_EXIT, new byte[] {(byte) status}, 0, 1), 0, 6);
        }
    }

    /** Lines the client types (an interactive shell): stdin packets' bytes, or the raw stream. */
    InputStream stdin() {
        InputStream raw = stream.input();
        if (!protocol) {
            return raw;
        }
        return new InputStream() {
            private byte[] data = new byte[0];
            private int pos;

            @Override
            public int read() throws IOException {
                while (pos == data.length) {
                    byte[] h = raw.readNBytes(5);
                    if (h.length < 5) {
                        return -1;
                    }
                    int len = ByteBuffer.wrap(h, 1, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
                    if (len < 0 || len > AdbMessage.MAX_PAYLOAD) {
                        throw new AdbMessage.AdbProtocolException("shell packet of " + len + " bytes");
                    }
                    byte[] body = raw.readNBytes(len);
                    if (h[0] == ID_CLOSE_STDIN) {
                        return -1;
                    }
                    if (h[0] == ID_STDIN) {
                        data = body;
                        pos = 0;
                    }
                }
                return data[pos++] & 0xff;
            }
        };
    }

    private OutputStream framed(int id) {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                while (len > 0) {
                    int n = Math.min(len, stream.connectionMaxPayload() - 5);
                    byte[] p = packet(id, b, off, n);
                    stream.write(p, 0, p.length);
                    off += n;
                    len -= n;
                }
            }
        };
    }

    private static byte[] packet(int id, byte[] b, int off, int len) {
        byte[] p = new byte[5 + len];
        ByteBuffer.wrap(p).order(ByteOrder.LITTLE_ENDIAN).put((byte) id).putInt(len).put(b, off, len);
        return p;
    }
}
