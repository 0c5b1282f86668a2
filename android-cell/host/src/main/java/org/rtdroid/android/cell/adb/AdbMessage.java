package org.rtdroid.android.cell.adb;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One message of the adb protocol (AOSP {@code system/core/adb/protocol.txt}): a 24-byte header of
 * six little-endian words (command, arg0, arg1, payload length, payload checksum, command ^
 * 0xffffffff) and the payload. Everything read comes from a client outside the cell: the magic,
 * the length and the checksum are checked before the payload is believed.
 */
record AdbMessage(int command, int arg0, int arg1, byte[] payload) {
    static final int A_SYNC = 0x434e5953;
    static final int A_CNXN = 0x4e584e43;
    static final int A_AUTH = 0x48545541;
    static final int A_OPEN = 0x4e45504f;
    static final int A_OKAY = 0x59414b4f;
    static final int A_CLSE = 0x45534c43;
    static final int A_WRTE = 0x45545257;
    static final int A_STLS = 0x534c5453;
    /** The version that no longer needs payload checksums (adb 1.0.41 speaks it). */
    static final int A_VERSION = 0x01000001;
    static final int A_VERSION_MIN = 0x01000000;
    /** AUTH arg0: the device's random token, the client's signature of it, the client's public key. */
    static final int AUTH_TOKEN = 1;
    static final int AUTH_SIGNATURE = 2;
    static final int AUTH_RSAPUBLICKEY = 3;
    /** The largest payload this side accepts or sends (what it announces in CNXN). */
    static final int MAX_PAYLOAD = 256 * 1024;
    static final int HEADER_BYTES = 24;

    static AdbMessage read(DataInputStream in) throws IOException {
        byte[] h = new byte[HEADER_BYTES];
        try {
            in.readFully(h);
        } catch (EOFException e) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(h).order(ByteOrder.LITTLE_ENDIAN);
        int command = b.getInt();
        int arg0 = b.getInt();
        int arg1 = b.getInt();
        int length = b.getInt();
        int checksum = b.getInt();
        int magic = b.getInt();
        if (magic != ~command) {
            throw new AdbProtocolException(String.format("bad magic 0x%08x for command 0x%08x", magic, command));
        }
        if (length < 0 || length > MAX_PAYLOAD) {
            throw new AdbProtocolException("payload of " + Integer.toUnsignedString(length) + " bytes, over "
                    + MAX_PAYLOAD);
        }
        byte[] payload = new byte[length];
        in.readFully(payload);
        // A client that negotiated A_VERSION may send 0 instead of the checksum.
        if (checksum != 0 && checksum != checksum(payload)) {
            throw new AdbProtocolException("payload checksum mismatch on " + name(command));
        }
        return new AdbMessage(command, arg0, arg1, payload);
    }

    void write(OutputStream out) throws IOException {
        byte[] m = new byte[HEADER_BYTES + payload.length];
        ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN).putInt(command).putInt(arg0).putInt(arg1)
                .putInt(payload.length).putInt(checksum(payload)).putInt(~command).put(payload);
        out.write(m);
    }

    static int checksum(byte[] payload) {
        int sum = 0;
        for (byte x : payload) {
            sum += x & 0xff;
        }
        return sum;
    }

    static String name(int command) {
        byte[] n = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(command).array();
        for (byte x : n) {
            if (x < 'A' || x > 'Z') {
                return String.format("0x%08x", command);
            }
        }
        return new String(n, java.nio.charset.StandardCharsets.US_ASCII);
    }

    /** A client broke the protocol: the connection is dropped, with this reason in the log. */
    static final class AdbProtocolException extends IOException {
        AdbProtocolException(String message) {
            super(message);
        }
    }
}
