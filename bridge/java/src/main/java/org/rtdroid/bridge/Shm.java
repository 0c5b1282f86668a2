package org.rtdroid.bridge;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Acquire/release and plain little-endian accesses to a region buffer, and copies that honour an
 * aligned-only backend. Every u32/u64 field of the layout sits at a naturally aligned offset, so
 * the VarHandle access modes are legal on it.
 */
final class Shm {
    static final VarHandle U64 = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    static final VarHandle U32 = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private Shm() {
    }

    static long getAcquireU64(ByteBuffer b, int offset) {
        return (long) U64.getAcquire(b, offset);
    }

    static void setReleaseU64(ByteBuffer b, int offset, long value) {
        U64.setRelease(b, offset, value);
    }

    static int getAcquireU32(ByteBuffer b, int offset) {
        return (int) U32.getAcquire(b, offset);
    }

    static void setReleaseU32(ByteBuffer b, int offset, int value) {
        U32.setRelease(b, offset, value);
    }

    static long getOpaqueU64(ByteBuffer b, int offset) {
        return (long) U64.getOpaque(b, offset);
    }

    static void setOpaqueU64(ByteBuffer b, int offset, long value) {
        U64.setOpaque(b, offset, value);
    }

    static int getOpaqueU32(ByteBuffer b, int offset) {
        return (int) U32.getOpaque(b, offset);
    }

    /**
     * A field this peer owns: if the shared copy is not {@code own} (another cell wrote it),
     * writes {@code own} back with release semantics and returns 1, else 0. Allocation-free.
     */
    static int republishU64(ByteBuffer b, int offset, long own) {
        if (getAcquireU64(b, offset) == own) {
            return 0;
        }
        setReleaseU64(b, offset, own);
        return 1;
    }

    /** {@link #republishU64} for a u32 field. */
    static int republishU32(ByteBuffer b, int offset, int own) {
        if (getAcquireU32(b, offset) == own) {
            return 0;
        }
        setReleaseU32(b, offset, own);
        return 1;
    }

    /**
     * Copies region bytes into {@code dst}. {@code view} is a private duplicate of the region
     * buffer (its position moves). Aligned-only memory is read 8 bytes at a time from 8-aligned
     * offsets, then byte by byte.
     */
    static void copyOut(ByteBuffer view, boolean alignedOnly, int offset, byte[] dst, int dstOff, int len) {
        if (!alignedOnly) {
            ((Buffer) view).position(offset); // Buffer's descriptor: older Android lacks ByteBuffer.position(int)
            view.get(dst, dstOff, len);
            return;
        }
        int i = 0;
        if ((offset & 7) == 0) {
            for (; i + 8 <= len; i += 8) {
                long v = view.getLong(offset + i);
                for (int k = 0; k < 8; k++) {
                    dst[dstOff + i + k] = (byte) (v >>> (8 * k));
                }
            }
        }
        for (; i < len; i++) {
            dst[dstOff + i] = view.get(offset + i);
        }
    }

    /** Copies {@code src} into the region; see {@link #copyOut}. */
    static void copyIn(ByteBuffer view, boolean alignedOnly, int offset, byte[] src, int srcOff, int len) {
        if (!alignedOnly) {
            ((Buffer) view).position(offset);
            view.put(src, srcOff, len);
            return;
        }
        int i = 0;
        if ((offset & 7) == 0) {
            for (; i + 8 <= len; i += 8) {
                long v = 0;
                for (int k = 7; k >= 0; k--) {
                    v = (v << 8) | (src[srcOff + i + k] & 0xFFL);
                }
                view.putLong(offset + i, v);
            }
        }
        for (; i < len; i++) {
            view.put(offset + i, src[srcOff + i]);
        }
    }
}
