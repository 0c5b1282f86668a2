package org.rtdroid.bridge;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.rtdroid.bridge.RegionDescriptor.Counter;
import org.rtdroid.bridge.codec.Frame;
import org.rtdroid.bridge.codec.FrameCodec;

/**
 * The shared vectors of bridge/vectors (written by generate.py with the official protobuf runtime
 * and the Python region code) read by the Java implementation: every frame decodes or is refused
 * with the listed error class, valid canonical frames re-encode byte for byte, and every region
 * image validates, reads, produces, attaches and formats exactly as committed. The index files
 * are the line formats of bridge/vectors/README.md.
 */
class SharedVectorsTest {
    static Path vectorsDir() {
        String dir = System.getProperty("xcc.vectors.dir");
        return dir != null ? Paths.get(dir) : Paths.get("..", "vectors");
    }

    static List<String[]> records(Path index) throws IOException {
        List<String[]> out = new ArrayList<>();
        for (String line : Files.readAllLines(index)) {
            String t = line.trim();
            if (!t.isEmpty() && !t.startsWith("#")) {
                out.add(t.split(" "));
            }
        }
        return out;
    }

    static byte[] hex(String s) {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return b;
    }

    static String hex(byte[] b, int len) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < len; i++) {
            sb.append(String.format("%02x", b[i] & 0xFF));
        }
        return sb.toString();
    }

    static int bodyKind(String body) {
        switch (body) {
            case "intent": return Frame.BODY_INTENT;
            case "message": return Frame.BODY_MESSAGE;
            case "control": return Frame.BODY_CONTROL;
            case "deploy_chunk": return Frame.BODY_DEPLOY_CHUNK;
            default: throw new AssertionError("unknown body " + body);
        }
    }

    @Test
    void vectorsArePresent() throws IOException {
        Path frames = vectorsDir().resolve("index.txt");
        Path regions = vectorsDir().resolve("regions").resolve("index.txt");
        assertTrue(Files.isRegularFile(frames), "no vector index at " + frames.toAbsolutePath());
        assertTrue(Files.isRegularFile(regions), "no region vector index at " + regions.toAbsolutePath());
        Map<String, Integer> kinds = new HashMap<>();
        for (String[] r : records(frames)) {
            if (r[0].equals("frame")) {
                kinds.merge("frame " + r[3], 1, Integer::sum);
            }
        }
        for (String[] r : records(regions)) {
            if (r[0].equals("vector")) {
                kinds.merge("region " + r[2], 1, Integer::sum);
            }
        }
        for (String kind : new String[] {"frame ok", "frame accept", "frame reject", "region format",
            "region attach_error", "region consumer", "region producer", "region attach"}) {
            assertTrue(kinds.getOrDefault(kind, 0) > 0, "no '" + kind + "' vectors: " + kinds);
        }
    }

    @TestFactory
    Stream<DynamicTest> frameVectors() throws IOException {
        Path dir = vectorsDir();
        List<DynamicTest> tests = new ArrayList<>();
        for (String[] r : records(dir.resolve("index.txt"))) {
            if (!r[0].equals("frame")) {
                continue;
            }
            String name = r[1];
            Path file = dir.resolve(r[2]);
            String verdict = r[3];
            String arg = r[4];
            tests.add(DynamicTest.dynamicTest("frame " + name, () -> {
                byte[] data = Files.readAllBytes(file);
                Frame frame = new Frame();
                int rc = FrameCodec.decode(data, 0, data.length, frame);
                if (verdict.equals("reject")) {
                    assertEquals(arg.toUpperCase(), FrameCodec.errorClass(rc), name + ": " + FrameCodec.describe(rc));
                    return;
                }
                assertEquals(FrameCodec.OK, rc, name + ": " + FrameCodec.describe(rc));
                assertEquals(bodyKind(arg), frame.bodyKind());
                byte[] again = new byte[Frame.MAX_FRAME_BYTES];
                int n = FrameCodec.encode(frame, again, 0);
                assertTrue(n > 0, FrameCodec.describe(n));
                if (verdict.equals("ok")) {
                    assertEquals(hex(data, data.length), hex(again, n), name + " re-encodes byte for byte");
                } else {
                    assertEquals("accept", verdict);
                    Frame canonical = new Frame();
                    assertEquals(FrameCodec.OK, FrameCodec.decode(again, 0, n, canonical));
                    assertEquals(frame.toString(), canonical.toString(), name + " survives re-encoding");
                }
                // and protobuf-java reads the same message
                assertEquals(org.rtdroid.bridge.codec.ProtoAccess.parse(data),
                        org.rtdroid.bridge.codec.ProtoAccess.toProto(frame));
            }));
        }
        return tests.stream();
    }

    @TestFactory
    Stream<DynamicTest> regionVectors() throws IOException {
        Path dir = vectorsDir().resolve("regions");
        List<DynamicTest> tests = new ArrayList<>();
        List<String[]> block = new ArrayList<>();
        for (String[] r : records(dir.resolve("index.txt"))) {
            block.add(r);
            if (r[0].equals("end")) {
                List<String[]> v = new ArrayList<>(block);
                block.clear();
                tests.add(DynamicTest.dynamicTest("region " + v.get(0)[1] + " (" + v.get(0)[2] + ")",
                        () -> runRegionVector(dir, v)));
            }
        }
        return tests.stream();
    }

    private static String value(List<String[]> v, String key) {
        for (String[] r : v) {
            if (r[0].equals(key)) {
                return r[1];
            }
        }
        return null;
    }

    private static RegionMemory load(Path file) throws IOException {
        byte[] image = Files.readAllBytes(file);
        ByteBuffer b = ByteBuffer.allocateDirect(image.length);
        b.put(image).clear();
        return RegionMemory.wrap(b);
    }

    private static byte[] bytes(RegionMemory m) {
        byte[] out = new byte[m.sizeBytes()];
        m.buffer().duplicate().get(out);
        return out;
    }

    private static void runRegionVector(Path dir, List<String[]> v) throws IOException {
        String name = v.get(0)[1];
        String kind = v.get(0)[2];
        switch (kind) {
            case "format": {
                String[] g = v.stream().filter(r -> r[0].equals("geometry")).findFirst().orElseThrow();
                RegionLayout layout = RegionLayout.of(Integer.parseInt(g[1]), Integer.parseInt(g[2]),
                        Integer.parseInt(g[3]));
                byte[] expected = Files.readAllBytes(dir.resolve(value(v, "image")));
                RegionMemory m = RegionMemory.wrap(ByteBuffer.allocateDirect(expected.length));
                Region.format(m, layout);
                assertArrayEquals(expected, bytes(m), name + ": the Java-formatted image equals the committed one");
                break;
            }
            case "attach_error": {
                RegionMemory m = load(dir.resolve(value(v, "base")));
                byte[] header = hex(value(v, "header"));
                m.buffer().duplicate().put(header);
                String field = value(v, "attach_error");
                RegionFormatException e = assertThrows(RegionFormatException.class,
                        () -> Region.attachCell(m, 0, true), name);
                assertEquals(field, e.field(), e.getMessage());
                break;
            }
            case "consumer": {
                RegionMemory m = load(dir.resolve(value(v, "image")));
                String[] c = v.stream().filter(r -> r[0].equals("consumer")).findFirst().orElseThrow();
                int peer = Integer.parseInt(c[1]);
                int ring = Integer.parseInt(c[2]);
                Region region = Region.openWithoutAttach(m, peer);
                ConsumerRing in = region.consumer(ring);
                List<String> expected = new ArrayList<>();
                for (String[] r : v) {
                    if (r[0].equals("poll") && r[1].equals("frame")) {
                        expected.add(r[3] + " " + r[4]);
                    }
                }
                List<String> actual = new ArrayList<>();
                byte[] dst = new byte[region.layout().maxFrameBytes()];
                int empties = 0;
                for (int guard = 0; empties < 2 && guard < 1000; guard++) {
                    int n = in.poll(dst);
                    if (n == 0) {
                        empties++;
                        continue;
                    }
                    empties = 0;
                    int rc = FrameCodec.decode(dst, 0, n, new Frame());
                    if (rc != FrameCodec.OK) {
                        in.countUndeliverable();
                    }
                    actual.add(hex(dst, n) + " " + (rc == FrameCodec.OK ? "ok" : FrameCodec.errorClass(rc)));
                }
                assertEquals(expected, actual, name + ": accepted frames in order");
                RingCounters counters = region.counters(1 - peer, ring);
                for (String[] r : v) {
                    if (r[0].equals("expect")) {
                        assertEquals(Long.parseUnsignedLong(r[2]), counter(counters, r[1]), name + ": " + r[1]);
                    }
                }
                break;
            }
            case "producer": {
                RegionMemory m = load(dir.resolve(value(v, "image")));
                String[] p = v.stream().filter(r -> r[0].equals("producer")).findFirst().orElseThrow();
                int peer = Integer.parseInt(p[1]);
                int ring = Integer.parseInt(p[2]);
                Region region = Region.openWithoutAttach(m, peer);
                int i = 0;
                for (String[] r : v) {
                    if (r[0].equals("offer")) {
                        assertEquals(Boolean.parseBoolean(r[2]), region.producer(ring).offer(hex(r[1])),
                                name + ": offer " + i++);
                    }
                }
                RingCounters counters = region.counters(peer, ring);
                for (String[] r : v) {
                    if (r[0].equals("expect")) {
                        assertEquals(Long.parseUnsignedLong(r[2]), counter(counters, r[1]), name + ": " + r[1]);
                    }
                }
                assertArrayEquals(Files.readAllBytes(dir.resolve(value(v, "after"))), bytes(m),
                        name + ": the image after the offers");
                break;
            }
            case "attach": {
                RegionMemory m = load(dir.resolve(value(v, "image")));
                int peer = Integer.parseInt(value(v, "attach"));
                Region.attachCell(m, peer, true);
                byte[] expected = Files.readAllBytes(dir.resolve(value(v, "after")));
                byte[] actual = bytes(m);
                assertEquals(firstDifference(expected, actual), -1, name + ": first differing byte");
                break;
            }
            default:
                fail("unknown region vector kind " + kind + " in " + name);
        }
    }

    private static int firstDifference(byte[] a, byte[] b) {
        if (a.length != b.length) {
            return Math.min(a.length, b.length);
        }
        for (int i = 0; i < a.length; i++) {
            if (a[i] != b[i]) {
                return i;
            }
        }
        return -1;
    }

    private static long counter(RingCounters c, String name) {
        int id = Counter.byLabel(name);
        if (id < 0) {
            throw new AssertionError("unknown counter " + name);
        }
        return c.get(id);
    }
}
