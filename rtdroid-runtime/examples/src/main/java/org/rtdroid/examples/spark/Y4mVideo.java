package org.rtdroid.examples.spark;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.rtdroid.runtime.os.PosixIo;

/**
 * A YUV4MPEG2 file (4:2:0, plain {@code FRAME} tags) read frame by frame (the seed's read action)
 * and converted to RGB (its parse action: what a decoder hands the analysis). The header is
 * checked when the file is opened (set-up, allocates); {@link #read} and {@link #parse} then
 * allocate nothing: one {@code pread} into a native buffer, a copy, a fixed-point BT.601
 * conversion. A frame whose tag is not {@code FRAME} is refused and counted ({@link #malformed()}).
 */
public final class Y4mVideo implements AutoCloseable {
    private static final byte[] TAG = "FRAME\n".getBytes(StandardCharsets.US_ASCII);
    private static final int MAX_HEADER = 256;

    private final int fd;
    private final int width;
    private final int height;
    private final long headerBytes;
    private final int frameBytes;
    private final long frames;
    private final MemorySegment buffer;
    private final byte[] yuv;
    private long lastRead = -1;
    private volatile long malformed;

    private Y4mVideo(int fd, int width, int height, long headerBytes, long fileBytes) {
        this.fd = fd;
        this.width = width;
        this.height = height;
        this.headerBytes = headerBytes;
        this.frameBytes = width * height + 2 * (width / 2) * (height / 2);
        this.frames = (fileBytes - headerBytes) / (TAG.length + frameBytes);
        this.buffer = Arena.ofAuto().allocate(TAG.length + frameBytes, 64);
        this.yuv = new byte[TAG.length + frameBytes];
    }

    /** Opens {@code file}, checking its stream header. @throws IOException naming what is wrong */
    public static Y4mVideo open(Path file) throws IOException {
        byte[] head;
        try (var in = Files.newInputStream(file)) {
            head = in.readNBytes(MAX_HEADER);
        }
        int nl = -1;
        for (int i = 0; i < head.length; i++) {
            if (head[i] == '\n') {
                nl = i;
                break;
            }
        }
        String header = nl < 0 ? "" : new String(head, 0, nl, StandardCharsets.US_ASCII);
        if (!header.startsWith("YUV4MPEG2 ")) {
            throw new IOException(file + ": not a YUV4MPEG2 stream (no 'YUV4MPEG2 ' header line)");
        }
        int w = -1;
        int h = -1;
        for (String p : header.substring(10).split(" ")) {
            if (p.startsWith("W")) {
                w = Integer.parseInt(p.substring(1));
            } else if (p.startsWith("H")) {
                h = Integer.parseInt(p.substring(1));
            } else if (p.startsWith("C") && !p.startsWith("C420")) {
                throw new IOException(file + ": colour space " + p.substring(1) + ", only 4:2:0 (C420*) is read");
            } else if (p.startsWith("I") && !p.equals("Ip")) {
                throw new IOException(file + ": interlaced (" + p + "), only progressive (Ip) is read");
            }
        }
        if (w <= 0 || h <= 0 || w % 2 != 0 || h % 2 != 0 || (long) w * h > 4096L * 4096) {
            throw new IOException(file + ": frame size " + w + "x" + h + " (even, at most 4096x4096)");
        }
        long size = Files.size(file);
        int fd = PosixIo.open(file.toString(), PosixIo.O_RDONLY | PosixIo.O_CLOEXEC);
        if (fd < 0) {
            throw new IOException(file + ": open: " + PosixIo.describe(fd));
        }
        Y4mVideo v = new Y4mVideo(fd, w, h, nl + 1, size);
        if (v.frames < 1) {
            v.close();
            throw new IOException(file + ": no whole frame after the header");
        }
        return v;
    }

    public int width() { return width; }
    public int height() { return height; }
    /** Whole frames in the file. */
    public long frames() { return frames; }
    /** Frames refused: a tag other than {@code FRAME\n}, or a short read. */
    public long malformed() { return malformed; }

    /** Reads frame {@code index} (modulo the file's frames: the video loops). @return false on a short read (counted) */
    public boolean read(long index) {
        long at = headerBytes + (index % frames) * (TAG.length + frameBytes);
        long n = PosixIo.preadNoErrno(fd, buffer, 0, buffer.byteSize(), at);
        lastRead = n == buffer.byteSize() ? index : -1;
        if (lastRead < 0) {
            malformed++;
        }
        return lastRead >= 0;
    }

    /**
     * Converts the frame last read to packed 0xRRGGBB (BT.601, limited range, chroma upsampled by
     * repetition). @return false if there is none or its tag is wrong (counted)
     */
    public boolean parse(int[] rgb) {
        if (lastRead < 0) {
            return false;
        }
        MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, 0, yuv, 0, yuv.length);
        for (int i = 0; i < TAG.length; i++) {
            if (yuv[i] != TAG[i]) {
                malformed++;
                return false;
            }
        }
        int y0 = TAG.length;
        int cb0 = y0 + width * height;
        int cr0 = cb0 + (width / 2) * (height / 2);
        int cw = width / 2;
        for (int y = 0; y < height; y++) {
            int crow = (y >> 1) * cw;
            for (int x = 0; x < width; x++) {
                int c = 298 * ((yuv[y0 + y * width + x] & 0xff) - 16);
                int d = (yuv[cb0 + crow + (x >> 1)] & 0xff) - 128;
                int e = (yuv[cr0 + crow + (x >> 1)] & 0xff) - 128;
                int r = clamp((c + 409 * e + 128) >> 8);
                int g = clamp((c - 100 * d - 208 * e + 128) >> 8);
                int b = clamp((c + 516 * d + 128) >> 8);
                rgb[y * width + x] = (r << 16) | (g << 8) | b;
            }
        }
        return true;
    }

    private static int clamp(int v) {
        return v < 0 ? 0 : Math.min(v, 255);
    }

    @Override
    public void close() {
        PosixIo.close(fd);
    }
}
