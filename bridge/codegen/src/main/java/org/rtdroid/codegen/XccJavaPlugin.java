package org.rtdroid.codegen;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.compiler.PluginProtos.CodeGeneratorRequest;
import com.google.protobuf.compiler.PluginProtos.CodeGeneratorResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code protoc-gen-xccjava}: protoc sends a CodeGeneratorRequest on stdin, the plugin answers with
 * the generated files (or one error naming what is wrong) on stdout. Parameters, comma-separated
 * ({@code --xccjava_out=k=v,k=v:DIR}):
 * <pre>
 *   options=PATH           the nanopb options file with every string/bytes bound (required)
 *   bounds=PKG.CLASS       the constants class of bounds (required)
 *   emit=codec|bounds      what to write; both may be given as codec+bounds (default codec)
 *   package=PKG            codec: the package of the model and codec (required for codec)
 *   root=MESSAGE           codec: the top-level message (default: the file's first)
 *   codec=CLASS            codec: the codec's class name (default: ROOT + "Codec")
 *   max_frame_bytes=N      bounds: the cap of one encoded root message (required for bounds)
 * </pre>
 * or, for app contracts (every file of the request is one app's payloads, {@link ContractGenerator}):
 * <pre>
 *   emit=contract          the contracts, their codecs, the shared support classes, the channel table
 *   options_dir=DIR        where each contract's NAME.options lies
 *   runtime_package=PKG    the package of the shared support classes (ProtoWire, BoundedBytes, Payload)
 *   max_payload_bytes=N    the wire's bound of one intent payload
 * </pre>
 * Launched by {@code bridge/codegen/protoc-gen-xccjava}.
 */
public final class XccJavaPlugin {
    private XccJavaPlugin() {
    }

    public static void main(String[] args) throws IOException {
        CodeGeneratorRequest request = CodeGeneratorRequest.parseFrom(System.in);
        run(request).writeTo(System.out);
        System.out.flush();
    }

    /** The response to one request: every file to generate, or an error and no files. */
    public static CodeGeneratorResponse run(CodeGeneratorRequest request) {
        CodeGeneratorResponse.Builder response = CodeGeneratorResponse.newBuilder();
        try {
            Map<String, String> params = parameters(request.getParameter());
            Map<String, FileDescriptorProto> byName = new HashMap<>();
            for (FileDescriptorProto f : request.getProtoFileList()) {
                byName.put(f.getName(), f);
            }
            Map<String, String> generated = new LinkedHashMap<>();
            if ("contract".equals(params.get("emit"))) {
                List<FileDescriptorProto> files = new ArrayList<>();
                for (String name : request.getFileToGenerateList()) {
                    files.add(byName.get(name));
                }
                generated.putAll(ContractGenerator.generate(files, params));
            } else {
                for (String name : request.getFileToGenerateList()) {
                    generated.putAll(FlyweightGenerator.generate(byName.get(name), params));
                }
            }
            for (Map.Entry<String, String> file : generated.entrySet()) {
                response.addFileBuilder().setName(file.getKey()).setContent(file.getValue());
            }
        } catch (GeneratorException e) {
            return CodeGeneratorResponse.newBuilder().setError("protoc-gen-xccjava: " + e.getMessage()).build();
        }
        return response.build();
    }

    static Map<String, String> parameters(String parameter) {
        Map<String, String> params = new HashMap<>();
        if (parameter.isEmpty()) {
            return params;
        }
        for (String item : parameter.split(",")) {
            int eq = item.indexOf('=');
            if (eq <= 0) {
                throw new GeneratorException("parameter '" + item + "' is not key=value");
            }
            params.put(item.substring(0, eq).strip(), item.substring(eq + 1).strip());
        }
        return params;
    }
}
