package org.rtdroid.android.cell.adb;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;

/**
 * One adb stream (OPEN .. CLSE) between a service on this side and the client, with the
 * protocol's flow control both ways: each WRTE this side sends waits for the client's OKAY before
 * the next, and each WRTE the client sends is acknowledged only when the service takes it, so a
 * fast client (a 30 MB push) never queues more than one payload here.
 */
final class AdbStream {
    private static final byte[] EOF = new byte[0];
    final int localId;
    final int remoteId;
    private final AdbConnection connection;
    private final Semaphore window = new Semaphore(0);
    private final LinkedBlockingQueue<byte[]> inbox = new LinkedBlockingQueue<>();
    private volatile boolean closed;

    AdbStream(AdbConnection connection, int localId, int remoteId) {
        this.connection = connection;
        this.localId = localId;
        this.remoteId = remoteId;
    }

    int connectionMaxPayload() {
        return connection.maxPayload();
    }

    /** The client's OKAY for the last WRTE. */
    void okay() {
        window.release();
    }

    /** A WRTE from the client. */
    void received(byte[] payload) {
        if (!closed) {
            inbox.add(payload);
        }
    }

    /** The client closed the stream, or the connection went. */
    void closedByPeer() {
        closed = true;
        inbox.add(EOF);
        window.release(Integer.MAX_VALUE / 2);
    }

    boolean isClosed() {
        return closed;
    }

    /** Sends bytes to the client, in payloads the connection allows, each after the last's OKAY. */
    void write(byte[] b, int off, int len) throws IOException {
        int max = connection.maxPayload();
        while (len > 0) {
            if (closed) {
                throw new IOException("stream closed by the client");
            }
            int n = Math.min(len, max);
            byte[] chunk = java.util.Arrays.copyOfRange(b, off, off + n);
            connection.send(AdbMessage.A_WRTE, localId, remoteId, chunk);
            try {
                window.acquire();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted waiting for the client's OKAY");
            }
            off += n;
            len -= n;
        }
    }

    /** The next payload the client wrote (acknowledged now), or null at the stream's end. */
    byte[] take() throws IOException {
        byte[] p;
        try {
            p = inbox.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException();
        }
        if (p == EOF) {
            inbox.add(EOF);
            return null;
        }
        connection.send(AdbMessage.A_OKAY, localId, remoteId, new byte[0]);
        return p;
    }

    /** This side is done: CLSE to the client (once). */
    void close() {
        if (!closed) {
            closed = true;
            connection.closeStream(this);
        }
    }

    /** The stream's output, buffered to whole payloads. */
    OutputStream output() {
        return new java.io.BufferedOutputStream(new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                AdbStream.this.write(b, off, len);
            }
        }, connection.maxPayload());
    }

    /** The stream's input: the client's payloads in order; -1 once it closed its side. */
    InputStream input() {
        return new InputStream() {
            private byte[] chunk = new byte[0];
            private int pos;

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (len == 0) {
                    return 0;
                }
                while (pos == chunk.length) {
                    byte[] next = take();
                    if (next == null) {
                        return -1;
                    }
                    chunk = next;
                    pos = 0;
                }
                int n = Math.min(len, chunk.length - pos);
                System.arraycopy(chunk, pos, b, off, n);
                pos += n;
                return n;
            }
        };
    }
}
