package org.rtdroid.android.app;

/** The little-endian payload fields of the cross-context channels (bridge/docs/protocols.md). */
public final class LittleEndian {
    private LittleEndian() {
    }

    public static void putI32(byte[] b, int off, int v) {
        b[off] = (byte) v;
        b[off + 1] = (byte) (v >>> 8);
        b[off + 2] = (byte) (v >>> 16);
        b[off + 3] = (byte) (v >>> 24);
    }

    public static int getI32(byte[] b, int off) {
        return (b[off] & 0xff) | (b[off + 1] & 0xff) << 8 | (b[off + 2] & 0xff) << 16
                | (b[off + 3] & 0xff) << 24;
    }

    public static float getF32(byte[] b, int off) {
        return Float.intBitsToFloat(getI32(b, off));
    }

    public static long getI64(byte[] b, int off) {
        return (getI32(b, off) & 0xffffffffL) | ((long) getI32(b, off + 4)) << 32;
    }
}
