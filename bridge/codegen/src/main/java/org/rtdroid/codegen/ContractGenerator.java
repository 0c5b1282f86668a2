package org.rtdroid.codegen;

import com.google.protobuf.ByteString;
import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnknownFieldSet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.rtdroid.codegen.FlyweightGenerator.Field;
import org.rtdroid.codegen.FlyweightGenerator.Kind;
import org.rtdroid.codegen.FlyweightGenerator.Msg;
import org.rtdroid.codegen.FlyweightGenerator.Oneof;
import org.rtdroid.codegen.FlyweightGenerator.Schema;

/**
 * App contracts ({@code emit=contract}): every .proto of the request is one app's cross-context
 * payloads. A message that travels carries the custom option {@code (rtdroid.contract.channel)}
 * of {@code bridge/contracts/rtdroid/contract.proto} (channel name, direction, actions, priority);
 * its string and bytes fields are bounded by the .options file beside the .proto.
 *
 * <p>Writes, per contract, the outer class (java_outer_classname, else the file's name in
 * CamelCase) with every message nested, and its codec ({@code <outer>Codec}); once per request, the
 * shared support classes in {@code runtime_package} ({@code ProtoWire}, {@code BoundedBytes},
 * {@code Payload}, {@code PayloadBounds}), the channel table {@code rtdroid-contracts/channels.tsv}
 * that the build checks the manifests against ({@link ContractCheck}), and
 * {@code rtdroid-contracts/payloads.md}, the payload section of {@code bridge/docs/protocols.md}.
 *
 * <p>Parameters: {@code emit=contract}, {@code options_dir} (where {@code <name>.options} lie; a
 * contract without strings or bytes needs none), {@code runtime_package},
 * {@code max_payload_bytes} (the wire's bound of one intent payload: no message may exceed it).
 */
final class ContractGenerator {
    /** The field number of {@code (rtdroid.contract.channel)} in contract.proto's extension of MessageOptions. */
    static final int CHANNEL_OPTION = 50701;
    static final String TABLE = "rtdroid-contracts/channels.tsv";
    static final String DOC = "rtdroid-contracts/payloads.md";
    private static final String[] DIRECTIONS = {null, "to-rt", "to-android", "both"};

    private ContractGenerator() {
    }

    /** Where one message travels: its (rtdroid.contract.channel) option. */
    static final class Channel {
        final String name;
        final String direction;
        final List<String> actions;
        final int priority;

        Channel(String name, String direction, List<String> actions, int priority) {
            this.name = name;
            this.direction = direction;
            this.actions = actions;
            this.priority = priority;
        }

        String directionText() {
            switch (direction) {
                case "to-rt": return "Android cell to RT cell";
                case "to-android": return "RT cell to Android cell";
                default: return "both ways";
            }
        }
    }

    /** One app contract as the writers need it. */
    static final class Contract {
        final String protoName;
        final String pkg;
        final String outer;
        final String codec;
        final String runtimePkg;
        final Map<Msg, Channel> channels = new LinkedHashMap<>();
        final Map<Msg, Integer> maxBytes = new HashMap<>();

        Contract(String protoName, String pkg, String outer, String runtimePkg) {
            this.protoName = protoName;
            this.pkg = pkg;
            this.outer = outer;
            this.codec = outer + "Codec";
            this.runtimePkg = runtimePkg;
        }
    }

    /** File path → content, for every contract of the request plus the shared files. */
    static Map<String, String> generate(List<FileDescriptorProto> files, Map<String, String> params) {
        String runtimePkg = FlyweightGenerator.required(params, "runtime_package");
        int cap = intParam(params, "max_payload_bytes");
        Path optionsDir = Path.of(FlyweightGenerator.required(params, "options_dir"));
        Map<String, String> out = new LinkedHashMap<>();
        out.put(FlyweightGenerator.pathOf(runtimePkg + ".BoundedBytes"), FlyweightGenerator.runtime("BoundedBytes", runtimePkg));
        out.put(FlyweightGenerator.pathOf(runtimePkg + ".Payload"), FlyweightGenerator.runtime("Payload", runtimePkg));
        out.put(FlyweightGenerator.pathOf(runtimePkg + ".ProtoWire"), FlyweightGenerator.runtime("ProtoWire", runtimePkg)
                .replace("import __BOUNDS_CLASS__;\n", "")
                .replace("__BOUNDS__.MAX_FRAME_BYTES", "PayloadBounds.MAX_PAYLOAD_BYTES")
                .replace("frame cap", "payload cap")
                .replace("__BODY_MEMBERS__", "the frame's body members"));
        out.put(FlyweightGenerator.pathOf(runtimePkg + ".PayloadBounds"), payloadBounds(runtimePkg, cap));
        StringBuilder table = new StringBuilder("# channel\tdirection\tmax_bytes\tmessage\tcontract\tactions\tpriority\n");
        StringBuilder doc = new StringBuilder();
        Map<String, String> channelOwner = new HashMap<>();
        List<FileDescriptorProto> sorted = new ArrayList<>(files);
        sorted.sort((a, b) -> a.getName().compareTo(b.getName())); // the table and doc in one order everywhere
        for (FileDescriptorProto file : sorted) {
            String base = baseName(file.getName());
            Path options = optionsDir.resolve(base + ".options");
            Schema schema = new Schema(file, Files.exists(options) ? BoundsOptions.read(options) : Collections.emptyMap(),
                    params);
            Contract c = contract(file, schema, runtimePkg, cap);
            out.put(FlyweightGenerator.pathOf(c.pkg + "." + c.outer), new FlyweightGenerator.ModelWriter(schema, c).write());
            out.put(FlyweightGenerator.pathOf(c.pkg + "." + c.codec), new FlyweightGenerator.CodecWriter(schema, c).write());
            for (Map.Entry<Msg, Channel> e : c.channels.entrySet()) {
                Channel ch = e.getValue();
                String owner = channelOwner.putIfAbsent(ch.name, file.getName());
                if (owner != null && !owner.equals(file.getName())) {
                    throw new GeneratorException(file.getName() + ": channel " + ch.name + " belongs to " + owner
                            + " (one contract per channel)");
                }
                table.append(ch.name).append('\t').append(ch.direction).append('\t').append(c.maxBytes.get(e.getKey()))
                        .append('\t').append(e.getKey().name).append('\t').append(file.getName()).append('\t')
                        .append(String.join(",", ch.actions)).append('\t').append(ch.priority).append('\n');
            }
            doc.append(markdown(file, schema, c));
        }
        out.put(TABLE, table.toString());
        out.put(DOC, doc.toString());
        return out;
    }

    private static Contract contract(FileDescriptorProto file, Schema schema, String runtimePkg, int cap) {
        String where = file.getName();
        if (!file.getOptions().hasJavaPackage()) {
            throw new GeneratorException(where + ": an app contract needs option java_package");
        }
        String outer = file.getOptions().hasJavaOuterClassname() ? file.getOptions().getJavaOuterClassname()
                : camel(baseName(where));
        Contract c = new Contract(where, file.getOptions().getJavaPackage(), outer, runtimePkg);
        for (Msg m : schema.messages) {
            if (m.name.equals(outer) || m.name.equals(c.codec)) {
                throw new GeneratorException(where + ": message " + m.name + " has the name of the contract's "
                        + (m.name.equals(outer) ? "outer class (set another java_outer_classname)" : "codec"));
            }
            c.maxBytes.put(m, maxBytes(m, new HashSet<>()));
        }
        Map<String, Channel> byName = new HashMap<>();
        for (DescriptorProto d : file.getMessageTypeList()) {
            Channel ch = channelOption(d, where);
            if (ch == null) {
                continue;
            }
            Msg m = schema.root(d.getName());
            if (c.maxBytes.get(m) > cap) {
                throw new GeneratorException(where + ": " + d.getName() + " encodes up to " + c.maxBytes.get(m)
                        + " bytes, over the wire's " + cap + "-byte payload bound (lower its max_size bounds)");
            }
            Channel same = byName.putIfAbsent(ch.name, ch);
            if (same != null && !same.direction.equals(ch.direction)) {
                throw new GeneratorException(where + ": channel " + ch.name + " is " + same.direction + " for one message and "
                        + ch.direction + " for " + d.getName());
            }
            Set<String> consts = new HashSet<>();
            for (String action : ch.actions) {
                if (!consts.add(actionConst(action))) {
                    throw new GeneratorException(where + ": " + d.getName() + " has two actions named " + actionConst(action));
                }
            }
            c.channels.put(m, ch);
        }
        if (c.channels.isEmpty()) {
            throw new GeneratorException(where + ": no message carries option (rtdroid.contract.channel)");
        }
        return c;
    }

    /** The (rtdroid.contract.channel) option of a message, read from its options' unknown fields; null if none. */
    private static Channel channelOption(DescriptorProto d, String where) {
        UnknownFieldSet.Field option = d.getOptions().getUnknownFields().getField(CHANNEL_OPTION);
        if (option.getLengthDelimitedList().isEmpty()) {
            return null;
        }
        String at = where + ": " + d.getName() + "'s (rtdroid.contract.channel)";
        UnknownFieldSet ch = UnknownFieldSet.getDefaultInstance();
        try {
            for (ByteString part : option.getLengthDelimitedList()) { // protoc may split an option: merge the parts
                ch = ch.toBuilder().mergeFrom(part).build();
            }
        } catch (InvalidProtocolBufferException e) {
            throw new GeneratorException(at + " is malformed: " + e.getMessage());
        }
        List<ByteString> names = ch.getField(1).getLengthDelimitedList();
        List<Long> dirs = ch.getField(2).getVarintList();
        List<Long> prios = ch.getField(4).getVarintList();
        List<String> actions = new ArrayList<>();
        for (ByteString a : ch.getField(3).getLengthDelimitedList()) {
            actions.add(a.toStringUtf8());
        }
        String name = names.isEmpty() ? "" : names.get(names.size() - 1).toStringUtf8();
        long dir = dirs.isEmpty() ? 0 : dirs.get(dirs.size() - 1);
        long priority = prios.isEmpty() ? 0 : prios.get(prios.size() - 1);
        if (name.isEmpty()) {
            throw new GeneratorException(at + " has no name");
        }
        if (dir < 1 || dir >= DIRECTIONS.length) {
            throw new GeneratorException(at + " has no direction (TO_RT, TO_ANDROID or BOTH)");
        }
        if (actions.isEmpty()) {
            throw new GeneratorException(at + " names no action");
        }
        if (priority > 99) {
            throw new GeneratorException(at + ": priority " + priority + " is outside 0..99");
        }
        return new Channel(name, DIRECTIONS[(int) dir], actions, (int) priority);
    }

    /** The most bytes {@code m} encodes to: every field present at its widest, the widest member of each oneof. */
    static int maxBytes(Msg m, Set<Msg> open) {
        if (!open.add(m)) {
            throw new GeneratorException(m.fullName.substring(1) + " contains itself: its size has no bound");
        }
        int total = 0;
        Map<Oneof, Integer> widest = new HashMap<>();
        for (Field f : m.fields) {
            int n = varintSize(f.number << 3) + valueBytes(f, open);
            if (f.oneof == null) {
                total += n;
            } else {
                widest.merge(f.oneof, n, Math::max);
            }
        }
        for (int n : widest.values()) {
            total += n;
        }
        open.remove(m);
        return total;
    }

    private static int valueBytes(Field f, Set<Msg> open) {
        if (f.kind.scalar()) {
            return f.kind.maxValueBytes;
        }
        int n = f.kind.bounded() ? f.bound : maxBytes(f.type, open);
        return varintSize(n) + n;
    }

    private static int varintSize(long v) {
        return 1 + (63 - Long.numberOfLeadingZeros(v | 1)) / 7;
    }

    /** {@code org.rtdroid.cochlear.CONFIG_ACK} → {@code ACTION_CONFIG_ACK}. */
    static String actionConst(String action) {
        String last = action.substring(action.lastIndexOf('.') + 1);
        return "ACTION_" + last.replaceAll("([a-z0-9])([A-Z])", "$1_$2").replaceAll("[^A-Za-z0-9]", "_").toUpperCase();
    }

    private static String payloadBounds(String pkg, int cap) {
        return FlyweightGenerator.header() + "package " + pkg + ";\n\n"
                + "/** The bound every app contract's payload is held to: the wire's bound of one intent payload. */\n"
                + "public final class PayloadBounds {\n"
                + "    private PayloadBounds() {\n    }\n\n"
                + "    /** The most bytes one encoded payload may take (xcc.options: Intent.payload). */\n"
                + "    public static final int MAX_PAYLOAD_BYTES = " + cap + ";\n"
                + "}\n";
    }

    // ------------------------------------------------------------------ the payload section of protocols.md

    private static String markdown(FileDescriptorProto file, Schema schema, Contract c) {
        StringBuilder md = new StringBuilder();
        md.append("### `").append(file.getName()).append("` (`").append(c.pkg).append('.').append(c.outer).append("`)\n\n");
        md.append("| channel | direction | actions | priority | payload | at most |\n|---|---|---|---|---|---|\n");
        for (Map.Entry<Msg, Channel> e : c.channels.entrySet()) {
            Channel ch = e.getValue();
            md.append("| `").append(ch.name).append("` | ").append(ch.directionText()).append(" | ");
            List<String> actions = new ArrayList<>();
            for (String a : ch.actions) {
                actions.add("`" + a + "`");
            }
            md.append(String.join(", ", actions)).append(" | ").append(ch.priority).append(" | `").append(e.getKey().name)
                    .append("` | ").append(c.maxBytes.get(e.getKey())).append(" B |\n");
        }
        for (com.google.protobuf.DescriptorProtos.EnumDescriptorProto e : schema.topEnums) {
            List<String> values = new ArrayList<>();
            for (com.google.protobuf.DescriptorProtos.EnumValueDescriptorProto v : e.getValueList()) {
                values.add("`" + v.getName() + "` = " + v.getNumber());
            }
            md.append("\nEnum `").append(e.getName()).append("`: ").append(String.join(", ", values)).append(".\n");
        }
        for (Msg m : schema.messages) {
            md.append("\n`").append(m.name).append('`');
            if (m.comment != null) {
                md.append(": ").append(m.comment);
            }
            md.append("\n\n| # | field | type | meaning |\n|---|---|---|---|\n");
            for (Field f : m.byNumber) {
                md.append("| ").append(f.number).append(" | `").append(f.name).append("` | ").append(typeText(f))
                        .append(" | ").append(f.comment == null ? "" : f.comment.replace("|", "\\|")).append(" |\n");
            }
        }
        return md.append('\n').toString();
    }

    private static String typeText(Field f) {
        if (f.kind == Kind.MESSAGE) {
            return "`" + f.type.name + "`";
        }
        if (f.kind.bounded()) {
            return f.kind.name().toLowerCase() + " (≤ " + f.bound + " B)";
        }
        if (f.kind == Kind.ENUM) {
            return "`" + f.typeName.substring(f.typeName.lastIndexOf('.') + 1) + "` (enum)";
        }
        return f.kind.name().toLowerCase();
    }

    // ------------------------------------------------------------------ helpers

    private static String baseName(String protoName) {
        String b = protoName.substring(protoName.lastIndexOf('/') + 1);
        return b.endsWith(".proto") ? b.substring(0, b.length() - ".proto".length()) : b;
    }

    private static String camel(String snake) {
        String c = FlyweightGenerator.lowerCamel(snake.replace('-', '_'));
        return Character.toUpperCase(c.charAt(0)) + c.substring(1);
    }

    private static int intParam(Map<String, String> params, String key) {
        String v = FlyweightGenerator.required(params, key);
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new GeneratorException("parameter " + key + "=" + v + " is not a number");
        }
    }
}
