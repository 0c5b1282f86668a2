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
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rtdroid.codegen.sensor.Frame;
import org.rtdroid.codegen.sensor.FrameCodec;
import org.rtdroid.codegen.sensor.SensorBounds;
import org.rtdroid.codegen.sensor.proto.SensorProto;

/**
 * sensor.proto is a schema unlike xcc.proto. The build generated its flyweight with this plugin and
 * its reference classes with protobuf-java; nothing else was written by hand. The two must agree
 * byte for byte in both directions (negative enum, int32 and int64 values included), the strings
 * and bytes must be held to their bounds from sensor.options, and the plugin must refuse a schema
 * it cannot bound, by name.
 */
class SensorSchemaTest {
    private static final Path OPTIONS = Path.of("src/test/proto/sensor.options");

    private static SensorProto.Frame referenceReading(String sensor) {
        return SensorProto.Frame.newBuilder().setSeq(7)
                .setReading(SensorProto.Reading.newBuilder().setSensor(sensor)
                        .setUnitValue(SensorProto.Reading.Unit.BELOW_RANGE_VALUE).setValue(-5).setOffset(-2)
                        .setHopLimit(0xFFFF_FFF0).setUrgent(true).setRaw(ByteString.copyFrom(new byte[] {1, 2, 3}))
                        .setWindow(SensorProto.Window.newBuilder().setFromNanos(1).setToNanos(-1L)))
                .build();
    }

    private static Frame flyweightReading(String sensor) {
        Frame f = new Frame().seq(7);
        Frame.Reading r = f.selectReading().sensor(sensor).unit(Frame.Reading.BELOW_RANGE).value(-5).offset(-2)
                .hopLimit(0xFFFF_FFF0).urgent(true).raw(new byte[] {1, 2, 3});
        r.selectWindow().fromNanos(1).toNanos(-1L);
        return f;
    }

    private static byte[] encode(Frame f) {
        byte[] dst = new byte[Frame.MAX_FRAME_BYTES];
        int n = FrameCodec.encode(f, dst, 0);
        assertTrue(n > 0, FrameCodec.describe(n));
        return Arrays.copyOf(dst, n);
    }

    @Test
    void encodesLikeProtobuf() {
        assertArrayEquals(referenceReading("pressure/left").toByteArray(), encode(flyweightReading("pressure/left")));
        Frame command = new Frame().seq(1);
        command.selectCommand().target("valve").code(3);
        assertArrayEquals(SensorProto.Frame.newBuilder().setSeq(1)
                .setCommand(SensorProto.Command.newBuilder().setTarget("valve").setCode(3)).build().toByteArray(),
                encode(command));
        Frame emptyWindow = new Frame();
        emptyWindow.selectReading().selectWindow();
        assertArrayEquals(SensorProto.Frame.newBuilder()
                .setReading(SensorProto.Reading.newBuilder().setWindow(SensorProto.Window.getDefaultInstance()))
                .build().toByteArray(), encode(emptyWindow), "a present empty sub-message is written");
    }

    @Test
    void fixedWidthAndZigzagScalarsEncodeAndDecodeLikeProtobuf() {
        byte[] wire = SensorProto.Frame.newBuilder().setCommand(SensorProto.Command.newBuilder().setTarget("cal")
                .setCalibration(SensorProto.Calibration.newBuilder().setGain(-0.0f).setBias(-1.5e300).setTrim(-3)
                        .setDrift(Long.MIN_VALUE).setSerial(0xFFFF_FFFE).setDelta(-7).setStamp(-2L).setSkew(Long.MAX_VALUE)))
                .build().toByteArray();
        Frame f = new Frame();
        f.selectCommand().target("cal").selectCalibration().gain(-0.0f).bias(-1.5e300).trim(-3).drift(Long.MIN_VALUE)
                .serial(0xFFFF_FFFE).delta(-7).stamp(-2L).skew(Long.MAX_VALUE);
        assertArrayEquals(wire, encode(f));
        Frame back = new Frame();
        assertEquals(FrameCodec.OK, FrameCodec.decode(wire, 0, wire.length, back));
        Frame.Calibration c = back.command().calibration();
        assertEquals(Float.floatToRawIntBits(-0.0f), Float.floatToRawIntBits(c.gain()), "-0.0f is written and read");
        assertEquals(-1.5e300, c.bias());
        assertEquals(-3, c.trim());
        assertEquals(Long.MIN_VALUE, c.drift());
        assertEquals(0xFFFF_FFFE, c.serial());
        assertEquals(-7, c.delta());
        assertEquals(-2L, c.stamp());
        assertEquals(Long.MAX_VALUE, c.skew());
        byte[] truncated = Arrays.copyOf(wire, wire.length - 1);
        assertEquals(FrameCodec.ERR_TRUNCATED, FrameCodec.decode(truncated, 0, truncated.length, back));
    }

    @Test
    void decodesFromProtobuf() {
        byte[] wire = referenceReading("pressure/left").toByteArray();
        Frame f = new Frame();
        assertEquals(FrameCodec.OK, FrameCodec.decode(wire, 0, wire.length, f));
        assertEquals(Frame.BODY_READING, f.bodyKind());
        Frame.Reading r = f.reading();
        assertEquals("pressure/left", r.sensorString());
        assertEquals(Frame.Reading.BELOW_RANGE, r.unit());
        assertEquals(-5L, r.value());
        assertEquals(-2, r.offset());
        assertEquals(0xFFFF_FFF0, r.hopLimit());
        assertTrue(r.urgent());
        assertTrue(r.hasWindow());
        assertEquals(-1L, r.window().toNanos());
        assertEquals(flyweightReading("pressure/left").toString(), f.toString());
        byte[] none = SensorProto.Frame.newBuilder().setSeq(2).build().toByteArray();
        assertEquals(FrameCodec.ERR_NO_BODY, FrameCodec.decode(none, 0, none.length, f));
        assertEquals("no body: none of reading, command (unknown frame kind)", FrameCodec.describe(FrameCodec.ERR_NO_BODY));
    }

    @Test
    void stringsAndBytesAreHeldToTheirBounds() {
        assertEquals(31, SensorBounds.MAX_READING_SENSOR_BYTES);
        assertEquals(16, SensorBounds.MAX_READING_RAW_BYTES);
        assertEquals(31, new Frame().reading().sensor().capacity());
        byte[] atBound = referenceReading("s".repeat(31)).toByteArray();
        byte[] overBound = referenceReading("s".repeat(32)).toByteArray();
        Frame f = new Frame();
        assertEquals(FrameCodec.OK, FrameCodec.decode(atBound, 0, atBound.length, f));
        assertEquals(FrameCodec.ERR_OVER_BOUND, FrameCodec.decode(overBound, 0, overBound.length, f));
        byte[] rawOver = SensorProto.Frame.newBuilder()
                .setReading(SensorProto.Reading.newBuilder().setRaw(ByteString.copyFrom(new byte[17]))).build().toByteArray();
        assertEquals(FrameCodec.ERR_OVER_BOUND, FrameCodec.decode(rawOver, 0, rawOver.length, f));
        assertEquals(128, Frame.MAX_FRAME_BYTES);
        assertEquals("oversize: longer than the 128-byte frame cap", FrameCodec.describe(FrameCodec.ERR_OVERSIZE));
    }

    @Test
    void pluginAnswersProtocWithTheGeneratedFiles() {
        CodeGeneratorResponse response = XccJavaPlugin.run(request(OPTIONS.toAbsolutePath().toString()));
        assertFalse(response.hasError(), response.getError());
        List<String> names = new ArrayList<>();
        for (CodeGeneratorResponse.File f : response.getFileList()) {
            names.add(f.getName());
        }
        assertEquals(List.of("org/rtdroid/codegen/sensor/SensorBounds.java", "org/rtdroid/codegen/sensor/Frame.java",
                "org/rtdroid/codegen/sensor/FrameCodec.java", "org/rtdroid/codegen/sensor/BoundedBytes.java",
                "org/rtdroid/codegen/sensor/ProtoWire.java"), names);
        assertTrue(response.getFile(0).getContent().contains("public static final int MAX_READING_SENSOR_BYTES = 31;"));
    }

    @Test
    void aStringWithoutABoundIsRefusedByName(@TempDir Path dir) throws Exception {
        Path options = dir.resolve("sensor.options");
        List<String> lines = new ArrayList<>();
        for (String line : Files.readAllLines(OPTIONS, StandardCharsets.UTF_8)) {
            if (!line.contains("Command.target")) {
                lines.add(line);
            }
        }
        Files.write(options, lines, StandardCharsets.UTF_8);
        CodeGeneratorResponse response = XccJavaPlugin.run(request(options.toString()));
        assertEquals("protoc-gen-xccjava: the options file has no max_size for rtdroid.codegen.sensor.Command.target",
                response.getError());
        assertEquals(0, response.getFileCount());
    }

    private static CodeGeneratorRequest request(String options) {
        return CodeGeneratorRequest.newBuilder()
                .addProtoFile(SensorProto.getDescriptor().toProto())
                .addFileToGenerate(SensorProto.getDescriptor().getName())
                .setParameter("options=" + options + ",emit=bounds+codec,package=org.rtdroid.codegen.sensor,"
                        + "bounds=org.rtdroid.codegen.sensor.SensorBounds,max_frame_bytes=128")
                .build();
    }
}
