package org.rtdroid.contract;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.rtdroid.contract.autopilot.Autopilot;
import org.rtdroid.contract.cochlear.Cochlear;

/**
 * Every payload message of every app contract, held to protobuf itself: the schemas as protoc
 * compiled them (a descriptor set) drive protobuf-java's DynamicMessage as the reference, and the
 * generated classes must encode byte for byte what it encodes, decode what it encodes to the same
 * values, carry the channel option as the schema says, and bound their size by MAX_BYTES; the
 * encode and decode paths allocate nothing. No contract is named here except in the allocation
 * test: a new app's contract is covered by being in bridge/contracts.
 */
class ContractsTest {
    private static final int ROUNDS = 300;

    /** A payload message of the schemas, its generated class and its channel option. */
    record Contracted(Descriptor type, Class<?> generated, DynamicMessage channel) {
    }

    private static List<Contracted> contracted() throws Exception {
        FileDescriptorSet set = FileDescriptorSet.parseFrom(Files.readAllBytes(Path.of("target/descriptors/contracts.desc")));
        Map<String, FileDescriptor> built = new HashMap<>();
        for (FileDescriptorProto f : set.getFileList()) { // dependencies come first
            List<FileDescriptor> deps = new ArrayList<>();
            for (String d : f.getDependencyList()) {
                deps.add(built.get(d));
            }
            built.put(f.getName(), FileDescriptor.buildFrom(f, deps.toArray(new FileDescriptor[0])));
        }
        Descriptor channelType = built.get("rtdroid/contract.proto").findMessageTypeByName("Channel");
        List<Contracted> out = new ArrayList<>();
        for (FileDescriptor f : built.values()) {
            if (f.getName().startsWith("rtdroid/") || f.getName().startsWith("google/")) {
                continue;
            }
            String outer = f.getOptions().getJavaOuterClassname();
            for (Descriptor m : f.getMessageTypes()) {
                List<ByteString> option = m.getOptions().getUnknownFields().getField(50701).getLengthDelimitedList();
                if (option.isEmpty()) {
                    continue;
                }
                Class<?> c = Class.forName(f.getOptions().getJavaPackage() + "." + outer + "$" + m.getName());
                out.add(new Contracted(m, c, DynamicMessage.parseFrom(channelType, option.get(0))));
            }
        }
        assertTrue(out.size() >= 6, "every app's payloads: " + out.size());
        return out;
    }

    private static String camel(String snake) {
        StringBuilder sb = new StringBuilder();
        boolean up = false;
        for (char c : snake.toCharArray()) {
            if (c == '_') {
                up = true;
            } else {
                sb.append(up ? Character.toUpperCase(c) : c);
                up = false;
            }
        }
        return sb.toString();
    }

    /** A value for {@code f}: the extremes first, then random ones. */
    private static Object value(FieldDescriptor f, Random r, int round, int bound) {
        int pick = round < 3 ? round : 3;
        switch (f.getType()) {
            case INT32: case SINT32: case SFIXED32: case UINT32: case FIXED32:
                return new int[] {0, -1, Integer.MIN_VALUE, r.nextInt()}[pick];
            case INT64: case SINT64: case SFIXED64: case UINT64: case FIXED64:
                return new long[] {0, -1, Long.MIN_VALUE, r.nextLong()}[pick];
            case FLOAT:
                return new float[] {0f, -0f, Float.NaN, (float) r.nextGaussian() * 1e3f}[pick];
            case DOUBLE:
                return new double[] {0, -0.0, Double.MAX_VALUE, r.nextGaussian()}[pick];
            case BOOL:
                return round % 2 == 1;
            case ENUM:
                return f.getEnumType().getValues().get(r.nextInt(f.getEnumType().getValues().size())).getNumber();
            case BYTES: {
                byte[] b = new byte[pick == 0 ? 0 : pick == 2 ? bound : r.nextInt(bound + 1)];
                r.nextBytes(b);
                return b;
            }
            default:
                throw new AssertionError(f.getFullName() + ": a " + f.getType() + " field: extend this test");
        }
    }

    private static Class<?> javaType(FieldDescriptor f) {
        switch (f.getJavaType()) {
            case INT: case ENUM: return int.class;
            case LONG: return long.class;
            case FLOAT: return float.class;
            case DOUBLE: return double.class;
            case BOOLEAN: return boolean.class;
            default: return byte[].class;
        }
    }

    private static int bound(Contracted c, FieldDescriptor f) throws Exception {
        String name = "MAX_" + c.type().getName().replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase() + "_"
                + f.getName().toUpperCase() + "_BYTES";
        return c.generated().getEnclosingClass().getField(name).getInt(null);
    }

    @Test
    void everyPayloadEncodesAndDecodesAsProtobufDoes() throws Exception {
        Random r = new Random(42);
        for (Contracted c : contracted()) {
            for (int round = 0; round < ROUNDS; round++) {
                DynamicMessage.Builder reference = DynamicMessage.newBuilder(c.type());
                Payload p = (Payload) c.generated().getConstructor().newInstance();
                Map<FieldDescriptor, Object> values = new HashMap<>();
                for (FieldDescriptor f : c.type().getFields()) {
                    Object v = value(f, r, round, f.getType() == FieldDescriptor.Type.BYTES ? bound(c, f) : 0);
                    values.put(f, v);
                    if (f.getType() == FieldDescriptor.Type.ENUM) {
                        reference.setField(f, f.getEnumType().findValueByNumber((Integer) v));
                    } else {
                        reference.setField(f, v instanceof byte[] ? ByteString.copyFrom((byte[]) v) : v);
                    }
                    c.generated().getMethod(camel(f.getName()), javaType(f)).invoke(p, v);
                }
                byte[] want = reference.build().toByteArray();
                byte[] dst = new byte[PayloadBounds.MAX_PAYLOAD_BYTES];
                int n = p.encode(dst, 0);
                String what = c.type().getFullName() + " round " + round;
                assertArrayEquals(want, Arrays.copyOf(dst, Math.max(n, 0)), what);
                assertTrue(n <= c.generated().getField("MAX_BYTES").getInt(null), what + ": within MAX_BYTES");

                Payload back = (Payload) c.generated().getConstructor().newInstance();
                assertEquals(ProtoWire.OK, back.decode(want, 0, want.length), what);
                for (FieldDescriptor f : c.type().getFields()) {
                    Method get = c.generated().getMethod(camel(f.getName()));
                    Object got = get.invoke(back);
                    if (got instanceof BoundedBytes) {
                        assertArrayEquals((byte[]) values.get(f), ((BoundedBytes) got).toByteArray(), what + " " + f.getName());
                    } else if (got instanceof Float) {
                        assertEquals(Float.floatToRawIntBits((Float) values.get(f)), Float.floatToRawIntBits((Float) got), what);
                    } else {
                        assertEquals(values.get(f), got, what + " " + f.getName());
                    }
                }
            }
        }
    }

    @Test
    void theWidestPayloadTakesMaxBytesAndAnUnknownFieldIsSkipped() throws Exception {
        for (Contracted c : contracted()) {
            Payload p = (Payload) c.generated().getConstructor().newInstance();
            for (FieldDescriptor f : c.type().getFields()) {
                Object widest;
                switch (f.getJavaType()) {
                    case INT: case ENUM: widest = f.getType() == FieldDescriptor.Type.SINT32 ? Integer.MIN_VALUE : -1; break;
                    case LONG: widest = f.getType() == FieldDescriptor.Type.SINT64 ? Long.MIN_VALUE : -1L; break;
                    case FLOAT: widest = 1f; break;
                    case DOUBLE: widest = 1.0; break;
                    case BOOLEAN: widest = true; break;
                    default: widest = new byte[bound(c, f)]; break;
                }
                c.generated().getMethod(camel(f.getName()), javaType(f)).invoke(p, widest);
            }
            byte[] dst = new byte[PayloadBounds.MAX_PAYLOAD_BYTES + 16];
            int n = p.encode(dst, 0);
            assertEquals(c.generated().getField("MAX_BYTES").getInt(null), n, c.type().getFullName());
            // a newer peer's field 99 (a varint) is skipped
            byte[] newer = Arrays.copyOf(dst, 3);
            newer[0] = (byte) 0x98;
            newer[1] = 0x06;
            newer[2] = 0x01;
            assertEquals(ProtoWire.OK, p.decode(newer, 0, 3), c.type().getFullName());
            assertEquals(ProtoWire.ERR_TRUNCATED, p.decode(dst, 0, n - 1), c.type().getFullName() + " cut short");
        }
    }

    @Test
    void channelOptionsAndTheTableSayWhatTheSchemasSay() throws Exception {
        String table;
        try (InputStream in = getClass().getClassLoader().getResourceAsStream("rtdroid-contracts/channels.tsv")) {
            table = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        String[] directions = {null, "to-rt", "to-android", "both"};
        for (Contracted c : contracted()) {
            DynamicMessage ch = c.channel();
            Descriptor t = ch.getDescriptorForType();
            String name = (String) ch.getField(t.findFieldByName("name"));
            int priority = (Integer) ch.getField(t.findFieldByName("priority"));
            Payload p = (Payload) c.generated().getConstructor().newInstance();
            assertEquals(name, c.generated().getField("CHANNEL").get(null));
            assertEquals(name, p.channel());
            assertEquals(priority, p.priority());
            List<String> actions = new ArrayList<>();
            for (Object a : (List<?>) ch.getField(t.findFieldByName("action"))) {
                actions.add((String) a);
                String constant = "ACTION_" + ((String) a).substring(((String) a).lastIndexOf('.') + 1);
                assertEquals(a, c.generated().getField(constant).get(null));
            }
            String direction = directions[((com.google.protobuf.Descriptors.EnumValueDescriptor)
                    ch.getField(t.findFieldByName("direction"))).getNumber()];
            String line = name + "\t" + direction + "\t" + c.generated().getField("MAX_BYTES").getInt(null) + "\t"
                    + c.type().getName() + "\t" + c.type().getFile().getName() + "\t" + String.join(",", actions) + "\t"
                    + priority;
            assertTrue(table.contains(line + "\n"), line + " in\n" + table);
        }
        assertFalse(table.contains("\t0\t"), "no empty payload");
    }

    @Test
    void encodingAndDecodingAllocateNothing() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertTrue(threads.isThreadAllocatedMemorySupported());
        threads.setThreadAllocatedMemoryEnabled(true);
        Cochlear.Status status = new Cochlear.Status();
        Cochlear.Status statusIn = new Cochlear.Status();
        Autopilot.SetMode mode = new Autopilot.SetMode();
        Autopilot.SetMode modeIn = new Autopilot.SetMode();
        byte[] buf = new byte[PayloadBounds.MAX_PAYLOAD_BYTES];
        long checksum = 0;
        long window = 0;
        for (int w = 0; w < 40; w++) { // warm-up windows until one allocates nothing (the JIT compiled it)
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 100_000; i++) {
                status.clear().releases(i).deadlineMisses(i & 3).worstLatenessNanos(i * 7L).volume(i % 101)
                        .noiseReduction(i & 1).inputRmsDbfs(-i).outputRmsDbfs(i * 0.5f);
                int n = status.encode(buf, 0);
                if (statusIn.decode(buf, 0, n) != ProtoWire.OK) {
                    throw new AssertionError("decode");
                }
                mode.mode(i & 3).roll(0.1f).pitch(-0.1f).throttle(0.5f);
                n = mode.encode(buf, 0);
                if (modeIn.decode(buf, 0, n) != ProtoWire.OK) {
                    throw new AssertionError("decode");
                }
                checksum += statusIn.releases() + modeIn.mode();
            }
            window = threads.getCurrentThreadAllocatedBytes() - before;
            if (window == 0 && w >= 2) {
                break;
            }
        }
        assertEquals(0, window, "bytes allocated by 200,000 encodes and decodes after warm-up");
        assertTrue(checksum > 0);
    }
}
