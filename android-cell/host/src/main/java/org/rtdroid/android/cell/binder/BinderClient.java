package org.rtdroid.android.cell.binder;

import java.io.Closeable;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * An app process's end of the system server's IPC: the same frames as {@link BinderServer} (a
 * little-endian 32-bit length, then UTF-8). The process says nothing of who it is: the system
 * server reads that from the kernel at connect, so the process connects after it became its app.
 */
public final class BinderClient implements Closeable {
    private final SocketChannel channel;

    private BinderClient(SocketChannel channel) {
        this.channel = channel;
    }

    public static BinderClient connect(Path socket) throws IOException {
        SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            c.connect(UnixDomainSocketAddress.of(socket));
        } catch (IOException e) {
            c.close();
            throw new IOException("cannot reach the system server at " + socket + ": " + e.getMessage(), e);
        }
        return new BinderClient(c);
    }

    /** One transaction: the request, then the system server's reply. */
    public String transact(String request) throws IOException {
        write(request);
        String reply = read();
        if (reply == null) {
            throw new IOException("the system server closed the connection");
        }
        return reply;
    }

    public void write(String text) throws IOException {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        ByteBuffer frame = ByteBuffer.allocate(4 + b.length).order(ByteOrder.LITTLE_ENDIAN).putInt(b.length).put(b).flip();
        while (frame.hasRemaining()) {
            channel.write(frame);
        }
    }

    /** The next frame, or null at the end of the stream. */
    public String read() throws IOException {
        ByteBuffer header = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
        if (!fill(header)) {
            return null;
        }
        int len = header.flip().getInt();
        if (len < 0 || len > BinderServer.MAX_TRANSACTION_BYTES) {
            throw new IOException("frame of " + len + " bytes (at most " + BinderServer.MAX_TRANSACTION_BYTES + ")");
        }
        ByteBuffer body = ByteBuffer.allocate(len);
        if (!fill(body)) {
            throw new IOException("the connection ended inside a frame");
        }
        return new String(body.array(), StandardCharsets.UTF_8);
    }

    private boolean fill(ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (channel.read(b) < 0) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
