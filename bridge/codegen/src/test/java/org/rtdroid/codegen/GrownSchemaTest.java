package org.rtdroid.codegen;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.compiler.PluginProtos.CodeGeneratorRequest;
import com.google.protobuf.compiler.PluginProtos.CodeGeneratorResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rtdroid.codegen.grown.Frame;
import org.rtdroid.codegen.grown.FrameCodec;
import org.rtdroid.codegen.grown.GrownBounds;
import org.rtdroid.codegen.grown.proto.GrownProto;

/**
 * grown.proto is xcc.proto's Frame and Intent with four fields added to Intent (a string with its
 * bound in grown.options, a uint32, a bool, an int64). The build generated its flyweight with this plugin and
 * its reference classes with protobuf-java; nothing else was written by hand. The two must agree
 * byte for byte in both directions, and the added string must be held to its bound.
 */
class GrownSchemaTest {
    private static final Path OPTIONS = Path.of("src/test/proto/grown.options");

    private static GrownProto.Frame reference(String route) {
        return GrownProto.Frame.newBuilder().setSeq(7).setSendTimeNanos(123456789L)
                .setIntent(GrownProto.Intent.newBuilder().setAction("ACTION_PING").setChannel("echo")
                        .setSenderPriority(42).setPayload(ByteString.copyFrom(new byte[] {1, 2, 3}))
                        .setCorrelationId(-1L).setSender("org.example.app")
                        .setRoute(route).setHopLimit(0xFFFF_FFF0).setUrgent(true).setOffsetNanos(-5))
                .build();
    }

    private static Frame flyweight(String route) {
        Frame f = new Frame().seq(7).sendTimeNanos(123456789L);
        f.selectIntent().action("ACTION_PING").channel("echo").senderPriority(42).payload(new byte[] {1, 2, 3})
                .correlationId(-1L).sender("org.example.app")
                .route(route).hopLimit(0xFFFF_FFF0).urgent(true).offsetNanos(-5);
        return f;
    }

    @Test
    void addedFieldsEncodeLikeProtobuf() {
        byte[] expected = reference("a/b/c").toByteArray();
        byte[] dst = new byte[Frame.MAX_FRAME_BYTES];
        int n = FrameCodec.encode(flyweight("a/b/c"), dst, 0);
        assertEquals(expected.length, n, FrameCodec.describe(n));
        assertArrayEquals(expected, java.util.Arrays.copyOf(dst, n));
    }

    @Test
    void addedFieldsDecodeFromProtobuf() {
        byte[] wire = reference("a/b/c").toByteArray();
        Frame f = new Frame();
        assertEquals(FrameCodec.OK, FrameCodec.decode(wire, 0, wire.length, f));
        assertEquals(Frame.BODY_INTENT, f.bodyKind());
        Frame.Intent i = f.intent();
        assertEquals("a/b/c", i.routeString());
        assertEquals(0xFFFF_FFF0, i.hopLimit());
        assertTrue(i.urgent());
        assertEquals(-5L, i.offsetNanos());
        assertEquals("ACTION_PING", i.actionString());
        assertEquals(flyweight("a/b/c").toString(), f.toString());
    }

    @Test
    void addedStringIsHeldToItsBound() {
        assertEquals(31, GrownBounds.MAX_INTENT_ROUTE_BYTES);
        assertEquals(31, new Frame().intent().route().capacity());
        byte[] atBound = reference("r".repeat(31)).toByteArray();
        byte[] overBound = reference("r".repeat(32)).toByteArray();
        Frame f = new Frame();
        assertEquals(FrameCodec.OK, FrameCodec.decode(atBound, 0, atBound.length, f));
        assertEquals(FrameCodec.ERR_OVER_BOUND, FrameCodec.decode(overBound, 0, overBound.length, f));
    }

    @Test
    void pluginAnswersProtocWithTheGeneratedFiles() {
        CodeGeneratorResponse response = XccJavaPlugin.run(request(OPTIONS.toAbsolutePath().toString()));
        assertFalse(response.hasError(), response.getError());
        List<String> names = new ArrayList<>();
        for (CodeGeneratorResponse.File f : response.getFileList()) {
            names.add(f.getName());
        }
        assertEquals(List.of("org/rtdroid/codegen/grown/GrownBounds.java", "org/rtdroid/codegen/grown/Frame.java",
                "org/rtdroid/codegen/grown/FrameCodec.java", "org/rtdroid/codegen/grown/BoundedBytes.java",
                "org/rtdroid/codegen/grown/ProtoWire.java"), names);
        assertTrue(response.getFile(0).getContent().contains("public static final int MAX_INTENT_ROUTE_BYTES = 31;"));
    }

    @Test
    void aStringWithoutABoundIsRefusedByName(@TempDir Path dir) throws Exception {
        Path options = dir.resolve("grown.options");
        List<String> lines = new ArrayList<>();
        for (String line : Files.readAllLines(OPTIONS, StandardCharsets.UTF_8)) {
            if (!line.contains("Intent.route")) {
                lines.add(line);
            }
        }
        Files.write(options, lines, StandardCharsets.UTF_8);
        CodeGeneratorResponse response = XccJavaPlugin.run(request(options.toString()));
        assertEquals("protoc-gen-xccjava: the options file has no max_size for rtdroid.xcc.grown.Intent.route",
                response.getError());
        assertEquals(0, response.getFileCount());
    }

    private static CodeGeneratorRequest request(String options) {
        return CodeGeneratorRequest.newBuilder()
                .addProtoFile(GrownProto.getDescriptor().toProto())
                .addFileToGenerate(GrownProto.getDescriptor().getName())
                .setParameter("options=" + options + ",emit=bounds+codec,package=org.rtdroid.codegen.grown,"
                        + "bounds=org.rtdroid.codegen.grown.GrownBounds,max_frame_bytes=496")
                .build();
    }
}
