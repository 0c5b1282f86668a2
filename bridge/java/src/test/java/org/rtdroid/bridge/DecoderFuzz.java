package org.rtdroid.bridge;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.rtdroid.bridge.codec.Frame;
import org.rtdroid.bridge.codec.FrameCodec;

/**
 * Fuzz targets for the Java decoders, outside CI's default run. Two ways to run them:
 * <pre>
 *   mvn -B -q -f bridge/java/pom.xml test -Dtest=DecoderFuzz -Dxcc.fuzz.seconds=60
 * </pre>
 * (a built-in mutational loop seeded with the shared vectors, for the given time), or with
 * Jazzer, whose entry point is {@link #fuzzerTestOneInput(byte[])}.
 *
 * <p>Properties checked on every input: the frame decoder never throws; an accepted frame
 * re-encodes and decodes to the same frame; the ring reader, given the input as a hostile
 * producer's section, never throws, never reads outside the region, and returns only frames
 * whose CRC matches their bytes.
 */
class DecoderFuzz {
    private static final RegionLayout LAYOUT = RegionLayout.of(2, 4, 128);
    private static final Frame FRAME = new Frame();
    private static final Frame AGAIN = new Frame();
    private static final byte[] ENCODED = new byte[Frame.MAX_FRAME_BYTES];
    private static final byte[] DST = new byte[LAYOUT.maxFrameBytes()];

    /** Jazzer entry point (also called by the built-in loop). */
    public static void fuzzerTestOneInput(byte[] data) {
        int rc = FrameCodec.decode(data, 0, data.length, FRAME);
        if (rc == FrameCodec.OK) {
            int n = FrameCodec.encode(FRAME, ENCODED, 0);
            if (n <= 0) {
                throw new AssertionError("accepted but cannot re-encode: " + FrameCodec.describe(n) + " " + FRAME);
            }
            if (FrameCodec.decode(ENCODED, 0, n, AGAIN) != FrameCodec.OK || !FRAME.toString().equals(AGAIN.toString())) {
                throw new AssertionError("re-encoding changed the frame: " + FRAME + " vs " + AGAIN);
            }
        } else if (rc >= 0 || FrameCodec.describe(rc).startsWith("unknown")) {
            throw new AssertionError("undocumented result " + rc);
        }
        // The same bytes as the producer peer's whole section of a small region.
        ByteBuffer b = ByteBuffer.allocateDirect(LAYOUT.regionBytes());
        RegionMemory memory = RegionMemory.wrap(b);
        Region.format(memory, LAYOUT);
        int section = LAYOUT.sectionOffset(1);
        for (int i = 0; i < LAYOUT.sectionBytes(); i++) {
            b.put(section + i, data.length == 0 ? 0 : data[i % data.length]);
        }
        Region reader = Region.openWithoutAttach(memory, 0);
        CRC32 crc = new CRC32();
        for (int ring = 0; ring < LAYOUT.rings(); ring++) {
            for (int k = 0; k < 8; k++) {
                int n = reader.consumer(ring).poll(DST);
                if (n < 0 || n > LAYOUT.maxFrameBytes()) {
                    throw new AssertionError("poll returned " + n);
                }
                if (n > 0) {
                    crc.reset();
                    crc.update(DST, 0, n);
                    long index = reader.consumer(ring).readIndex() - 1;
                    int slot = LAYOUT.slotOffset(1, ring, index);
                    if ((int) crc.getValue() != b.getInt(slot + RegionLayout.FRAME_CRC_OFFSET)) {
                        throw new AssertionError("returned a frame whose CRC does not match");
                    }
                }
            }
        }
    }

    @Test
    @EnabledIfSystemProperty(named = "xcc.fuzz.seconds", matches = "\\d+")
    void fuzzForTheGivenTime() throws Exception {
        long seconds = Long.parseLong(System.getProperty("xcc.fuzz.seconds"));
        List<byte[]> corpus = new ArrayList<>();
        Path frames = SharedVectorsTest.vectorsDir().resolve("frames");
        if (Files.isDirectory(frames)) {
            try (var files = Files.list(frames)) {
                files.filter(p -> p.toString().endsWith(".bin")).forEach(p -> {
                    try {
                        corpus.add(Files.readAllBytes(p));
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
            }
        }
        corpus.add(new byte[] {0x62, 0x00});
        Random r = new Random(seconds);
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        long execs = 0;
        while (System.nanoTime() < end) {
            byte[] base = corpus.get(r.nextInt(corpus.size()));
            byte[] input = mutate(r, base);
            fuzzerTestOneInput(input);
            execs++;
            if (FrameCodec.decode(input, 0, input.length, FRAME) == FrameCodec.OK && corpus.size() < 10_000
                    && r.nextInt(16) == 0) {
                corpus.add(input);
            }
        }
        System.out.println("DecoderFuzz: " + execs + " inputs in " + seconds + " s, corpus " + corpus.size());
        assertTrue(execs > 0);
    }

    private static byte[] mutate(Random r, byte[] base) {
        byte[] out = java.util.Arrays.copyOf(base, Math.max(0, base.length + r.nextInt(9) - 4));
        int edits = 1 + r.nextInt(4);
        for (int e = 0; e < edits && out.length > 0; e++) {
            int at = r.nextInt(out.length);
            switch (r.nextInt(4)) {
                case 0: out[at] ^= (byte) (1 << r.nextInt(8)); break;
                case 1: out[at] = (byte) r.nextInt(); break;
                case 2: out[at] = (byte) (r.nextBoolean() ? 0x80 : 0xFF); break;
                default: out[at] = (byte) ((r.nextInt(16) << 3) | r.nextInt(8)); break; // a tag
            }
        }
        return out;
    }

    @Test
    void fuzzTargetAcceptsTheSeeds() {
        // The default run exercises the target once per shape so it cannot rot.
        fuzzerTestOneInput(new byte[0]);
        fuzzerTestOneInput(new byte[] {0x62, 0x00});
        fuzzerTestOneInput(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF});
        Random r = new Random(5);
        for (int i = 0; i < 200; i++) {
            byte[] b = new byte[r.nextInt(600)];
            r.nextBytes(b);
            fuzzerTestOneInput(b);
        }
    }
}
