package org.rtdroid.codegen;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumDescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumValueDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.SourceCodeInfo;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes the allocation-free Java model and codec of one .proto file, in the style of SBE
 * flyweights: the root message is a reusable object with its sub-messages pre-allocated as nested
 * classes, every string/bytes field a fixed-capacity {@code BoundedBytes} sized from the options
 * file, and a static codec ({@code encode} / {@code encodedSize} / {@code decode}) over byte arrays
 * whose output is protobuf's canonical encoding. Also writes the constants class of bounds.
 *
 * <p>Supported: proto3 singular {@code uint64 int64 uint32 int32 bool string bytes}, enums (as int
 * constants of the enclosing class) and sub-messages; a oneof of sub-messages (the root's oneofs
 * are required: a root message without one is {@code ERR_NO_BODY}). Anything else is refused with a
 * message naming the field. The generated code is Java 11 (the Android proxy's D8 level).
 */
final class FlyweightGenerator {
    private static final String RUNTIME = "org/rtdroid/codegen/runtime/";
    private static final Set<String> KEYWORDS = Set.of("abstract", "assert", "boolean", "break", "byte", "case",
            "catch", "char", "class", "const", "continue", "default", "do", "double", "else", "enum", "extends",
            "final", "finally", "float", "for", "goto", "if", "implements", "import", "instanceof", "int",
            "interface", "long", "native", "new", "package", "private", "protected", "public", "return", "short",
            "static", "strictfp", "super", "switch", "synchronized", "this", "throw", "throws", "transient", "try",
            "void", "volatile", "while", "true", "false", "null", "var", "record", "yield");

    private FlyweightGenerator() {
    }

    /** File path (in the output tree) → Java source. */
    static Map<String, String> generate(FileDescriptorProto file, Map<String, String> params) {
        Schema schema = new Schema(file, BoundsOptions.read(Path.of(required(params, "options"))), params);
        String bounds = required(params, "bounds");
        Map<String, String> out = new LinkedHashMap<>();
        for (String what : params.getOrDefault("emit", "codec").split("\\+")) {
            switch (what) {
                case "bounds":
                    out.put(pathOf(bounds), new BoundsWriter(schema, bounds, intParam(params, "max_frame_bytes")).write());
                    break;
                case "codec": {
                    String pkg = required(params, "package");
                    Msg root = schema.root(params.get("root"));
                    String codec = params.getOrDefault("codec", root.name + "Codec");
                    ModelWriter model = new ModelWriter(schema, pkg, root, bounds);
                    out.put(pathOf(pkg + "." + root.name), model.write());
                    out.put(pathOf(pkg + "." + codec), new CodecWriter(schema, pkg, root, codec, bounds).write());
                    out.put(pathOf(pkg + ".BoundedBytes"), runtime("BoundedBytes", pkg));
                    out.put(pathOf(pkg + ".ProtoWire"), runtime("ProtoWire", pkg)
                            .replace("__BOUNDS_CLASS__", bounds)
                            .replace("__BOUNDS__", bounds.substring(bounds.lastIndexOf('.') + 1))
                            .replace("__BODY_MEMBERS__", root.bodyMembers()));
                    break;
                }
                default:
                    throw new GeneratorException("emit=" + what + ": expected codec, bounds or codec+bounds");
            }
        }
        return out;
    }

    static String required(Map<String, String> params, String key) {
        String v = params.get(key);
        if (v == null || v.isEmpty()) {
            throw new GeneratorException("parameter " + key + "=... is required");
        }
        return v;
    }

    private static int intParam(Map<String, String> params, String key) {
        String v = required(params, key);
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new GeneratorException("parameter " + key + "=" + v + " is not a number");
        }
    }

    static String pathOf(String qualifiedClass) {
        return qualifiedClass.replace('.', '/') + ".java";
    }

    /** A runtime support class copied into the generated package. */
    static String runtime(String name, String pkg) {
        try (InputStream in = FlyweightGenerator.class.getClassLoader().getResourceAsStream(RUNTIME + name + ".java")) {
            if (in == null) {
                throw new GeneratorException("runtime source " + name + " is missing from the plugin");
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return header() + text.replaceFirst("package org\\.rtdroid\\.codegen\\.runtime;", "package " + pkg + ";");
        } catch (IOException e) {
            throw new GeneratorException("cannot read runtime source " + name + ": " + e.getMessage());
        }
    }

    static String header() {
        return "// Generated by protoc-gen-xccjava (bridge/codegen). Do not edit.\n";
    }

    // ====================================================================== schema model

    enum Kind {
        UINT64("long", "uint64", 0, 10), INT64("long", "uint64", 0, 10), UINT32("int", "uint32", 0, 5),
        INT32("int", "int32", 0, 10), ENUM("int", "int32", 0, 10), SINT32("int", "sint32", 0, 5),
        SINT64("long", "sint64", 0, 10), BOOL("boolean", "bool", 0, 1),
        FIXED32("int", "fixed32", 5, 4), SFIXED32("int", "fixed32", 5, 4), FLOAT("float", "float", 5, 4),
        FIXED64("long", "fixed64", 1, 8), SFIXED64("long", "fixed64", 1, 8), DOUBLE("double", "double", 1, 8),
        STRING(null, null, 2, 0), BYTES(null, null, 2, 0), MESSAGE(null, null, 2, 0);

        final String javaType;
        /** The ProtoWire size/write helper stem. */
        final String wire;
        /** The protobuf wire type: 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32. */
        final int wireType;
        /** The most bytes a scalar's value takes on the wire (a negative int32 is sign-extended to 10). */
        final int maxValueBytes;

        Kind(String javaType, String wire, int wireType, int maxValueBytes) {
            this.javaType = javaType;
            this.wire = wire;
            this.wireType = wireType;
            this.maxValueBytes = maxValueBytes;
        }

        String wireTypeConst() {
            switch (wireType) {
                case 0: return "WT_VARINT";
                case 1: return "WT_FIXED64";
                case 5: return "WT_FIXED32";
                default: return "WT_LEN";
            }
        }

        boolean bounded() {
            return this == STRING || this == BYTES;
        }

        boolean scalar() {
            return javaType != null;
        }
    }

    static final class Field {
        final String name;
        final String camel;
        final String upper;
        final int number;
        final Kind kind;
        final String typeName;
        Msg type;
        Oneof oneof;
        int bit;
        int bound;
        String boundConst;
        String comment;

        Field(FieldDescriptorProto d, Kind kind) {
            this.name = d.getName();
            this.camel = javaName(lowerCamel(name));
            this.upper = name.toUpperCase();
            this.number = d.getNumber();
            this.kind = kind;
            this.typeName = d.getTypeName();
        }

        String cap() {
            return Character.toUpperCase(camel.charAt(0)) + camel.substring(1);
        }

        String tag() {
            return "(" + number + " << 3) | " + kind.wireTypeConst();
        }
    }

    static final class Oneof {
        final String name;
        final String camel;
        final String upper;
        final List<Field> members = new ArrayList<>();
        int bit;

        Oneof(String name) {
            this.name = name;
            this.camel = lowerCamel(name);
            this.upper = name.toUpperCase();
        }

        String cap() {
            return Character.toUpperCase(camel.charAt(0)) + camel.substring(1);
        }

        String kindConst(Field f) {
            return upper + "_" + f.upper;
        }
    }

    static final class Msg {
        final String name;
        final String fullName;
        final String comment;
        final List<Field> fields = new ArrayList<>();
        final List<Field> byNumber = new ArrayList<>();
        final List<Oneof> oneofs = new ArrayList<>();
        final List<EnumDescriptorProto> enums = new ArrayList<>();

        Msg(String name, String fullName, String comment) {
            this.name = name;
            this.fullName = fullName;
            this.comment = comment;
        }

        String upper() {
            return name.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase();
        }

        /** The members of every oneof ("intent, message, ..."): the bodies a root message needs one of. */
        String bodyMembers() {
            List<String> names = new ArrayList<>();
            for (Oneof o : oneofs) {
                for (Field f : o.members) {
                    names.add(f.name);
                }
            }
            return String.join(", ", names);
        }
    }

    static final class Schema {
        final String protoName;
        final List<Msg> messages = new ArrayList<>();
        final List<EnumDescriptorProto> topEnums = new ArrayList<>();
        /** Bounded fields in options-file order: the constants of the bounds class. */
        final List<Field> bounded = new ArrayList<>();
        private final Map<String, Msg> byFullName = new HashMap<>();
        private final Map<String, String> comments = new HashMap<>();

        Schema(FileDescriptorProto file, Map<String, Integer> maxSize, Map<String, String> params) {
            protoName = file.getName();
            if (!"proto3".equals(file.getSyntax())) {
                throw new GeneratorException(protoName + ": only proto3 is supported");
            }
            for (SourceCodeInfo.Location loc : file.getSourceCodeInfo().getLocationList()) {
                String text = loc.hasLeadingComments() ? loc.getLeadingComments() : loc.getTrailingComments();
                if (!text.isBlank()) {
                    comments.put(loc.getPathList().toString(), text.strip().replaceAll("\\s*\n\\s*", " "));
                }
            }
            String pkg = file.getPackage().isEmpty() ? "" : "." + file.getPackage();
            for (int i = 0; i < file.getMessageTypeCount(); i++) {
                collect(file.getMessageType(i), pkg, List.of(4, i));
            }
            topEnums.addAll(file.getEnumTypeList());
            for (Msg m : messages) {
                for (Field f : m.fields) {
                    if (f.kind == Kind.MESSAGE) {
                        f.type = byFullName.get(f.typeName);
                        if (f.type == null) {
                            throw new GeneratorException(m.fullName.substring(1) + "." + f.name + ": type " + f.typeName
                                    + " is not a message of " + protoName + " (imports are not supported)");
                        }
                    }
                }
            }
            bindBounds(maxSize);
        }

        private void collect(DescriptorProto d, String scope, List<Integer> path) {
            String full = scope + "." + d.getName();
            for (Msg other : messages) {
                if (other.name.equals(d.getName())) {
                    throw new GeneratorException(full.substring(1) + ": a second message named " + d.getName()
                            + " (all messages become nested classes of the root)");
                }
            }
            Msg m = new Msg(d.getName(), full, comments.get(path.toString()));
            messages.add(m);
            byFullName.put(full, m);
            for (var o : d.getOneofDeclList()) {
                m.oneofs.add(new Oneof(o.getName()));
            }
            for (int i = 0; i < d.getFieldCount(); i++) {
                FieldDescriptorProto fd = d.getField(i);
                String where = full.substring(1) + "." + fd.getName();
                if (fd.getLabel() == FieldDescriptorProto.Label.LABEL_REPEATED) {
                    throw new GeneratorException(where + ": repeated fields are not supported (fixed capacity only)");
                }
                if (fd.getProto3Optional()) {
                    throw new GeneratorException(where + ": proto3 optional is not supported");
                }
                Field f = new Field(fd, kindOf(fd, where));
                f.comment = comments.get(append(path, 2, i).toString());
                if (fd.hasOneofIndex()) {
                    f.oneof = m.oneofs.get(fd.getOneofIndex());
                    if (f.kind != Kind.MESSAGE) {
                        throw new GeneratorException(where + ": only sub-messages may be oneof members");
                    }
                    f.oneof.members.add(f);
                }
                m.fields.add(f);
            }
            m.byNumber.addAll(m.fields);
            m.byNumber.sort(Comparator.comparingInt(f -> f.number));
            int bit = 0;
            for (Field f : m.fields) {
                if (f.oneof == null) {
                    f.bit = bit++;
                } else if (f.oneof.members.get(0) == f) {
                    f.oneof.bit = bit++;
                }
                if (f.oneof != null) {
                    f.bit = f.oneof.bit;
                }
            }
            if (bit > 31) {
                throw new GeneratorException(full.substring(1) + ": more than 31 fields");
            }
            m.enums.addAll(d.getEnumTypeList());
            for (int i = 0; i < d.getNestedTypeCount(); i++) {
                collect(d.getNestedType(i), full, append(path, 3, i));
            }
        }

        private static List<Integer> append(List<Integer> path, int a, int b) {
            List<Integer> p = new ArrayList<>(path);
            p.add(a);
            p.add(b);
            return p;
        }

        private static Kind kindOf(FieldDescriptorProto fd, String where) {
            switch (fd.getType()) {
                case TYPE_UINT64: return Kind.UINT64;
                case TYPE_INT64: return Kind.INT64;
                case TYPE_UINT32: return Kind.UINT32;
                case TYPE_INT32: return Kind.INT32;
                case TYPE_ENUM: return Kind.ENUM;
                case TYPE_SINT32: return Kind.SINT32;
                case TYPE_SINT64: return Kind.SINT64;
                case TYPE_FIXED32: return Kind.FIXED32;
                case TYPE_SFIXED32: return Kind.SFIXED32;
                case TYPE_FLOAT: return Kind.FLOAT;
                case TYPE_FIXED64: return Kind.FIXED64;
                case TYPE_SFIXED64: return Kind.SFIXED64;
                case TYPE_DOUBLE: return Kind.DOUBLE;
                case TYPE_BOOL: return Kind.BOOL;
                case TYPE_STRING: return Kind.STRING;
                case TYPE_BYTES: return Kind.BYTES;
                case TYPE_MESSAGE: return Kind.MESSAGE;
                default:
                    throw new GeneratorException(where + ": type " + fd.getType() + " is not supported");
            }
        }

        /** Every string/bytes field needs a max_size, and every max_size must name one. */
        private void bindBounds(Map<String, Integer> maxSize) {
            Map<String, Field> byName = new HashMap<>();
            for (Msg m : messages) {
                for (Field f : m.fields) {
                    if (f.kind.bounded()) {
                        String name = m.fullName.substring(1) + "." + f.name;
                        if (!maxSize.containsKey(name)) {
                            throw new GeneratorException("the options file has no max_size for " + name);
                        }
                        byName.put(name, f);
                        f.boundConst = "MAX_" + m.upper() + "_" + f.upper + "_BYTES";
                    }
                }
            }
            for (Map.Entry<String, Integer> e : maxSize.entrySet()) {
                Field f = byName.get(e.getKey());
                if (f == null) {
                    throw new GeneratorException("the options file names " + e.getKey()
                            + ", which is not a string or bytes field of " + protoName);
                }
                // nanopb's max_size of a string counts its NUL terminator
                f.bound = f.kind == Kind.STRING ? e.getValue() - 1 : e.getValue();
                if (f.bound < 1) {
                    throw new GeneratorException(e.getKey() + ": max_size " + e.getValue() + " leaves no room");
                }
                bounded.add(f);
            }
        }

        Msg root(String name) {
            if (name == null) {
                return messages.get(0);
            }
            for (Msg m : messages) {
                if (m.name.equals(name)) {
                    return m;
                }
            }
            throw new GeneratorException("root=" + name + ": no such message in " + protoName);
        }

        String comment(Msg m) {
            return m.comment;
        }

        String enumComment(EnumDescriptorProto e) {
            return e.getName();
        }
    }

    static String lowerCamel(String snake) {
        StringBuilder sb = new StringBuilder();
        boolean up = false;
        for (char c : snake.toCharArray()) {
            if (c == '_') {
                up = sb.length() > 0;
            } else {
                sb.append(up ? Character.toUpperCase(c) : c);
                up = false;
            }
        }
        return sb.toString();
    }

    private static String javaName(String name) {
        return KEYWORDS.contains(name) ? name + "_" : name;
    }

    /** A proto comment as Javadoc text. */
    static String doc(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("*/", "*&#47;");
    }

    // ====================================================================== writers

    /** Indented source text. */
    static class Source {
        private final StringBuilder sb = new StringBuilder();
        private int indent;

        Source line(String text) {
            if (!text.isEmpty()) {
                sb.append("    ".repeat(indent)).append(text);
            }
            sb.append('\n');
            return this;
        }

        Source open(String text) {
            line(text + " {");
            indent++;
            return this;
        }

        Source close() {
            indent--;
            return line("}");
        }

        Source javadoc(String text) {
            if (text != null) {
                line("/** " + doc(text) + " */");
            }
            return this;
        }

        @Override
        public String toString() {
            return sb.toString();
        }
    }

    static final class BoundsWriter extends Source {
        private final Schema schema;
        private final String qualified;
        private final int maxFrameBytes;

        BoundsWriter(Schema schema, String qualified, int maxFrameBytes) {
            this.schema = schema;
            this.qualified = qualified;
            this.maxFrameBytes = maxFrameBytes;
        }

        String write() {
            int dot = qualified.lastIndexOf('.');
            line(header().strip()).line("package " + qualified.substring(0, dot) + ";").line("");
            line("/**");
            line(" * The byte bounds of " + schema.protoName + " (its .options file; a string's nanopb max_size");
            line(" * counts the NUL terminator, so a string carries max_size − 1 bytes). Every Java module reads");
            line(" * its bounds here. Constants only: no code, no dependencies.");
            line(" */");
            open("public final class " + qualified.substring(dot + 1));
            open("private " + qualified.substring(dot + 1) + "()").close();
            line("");
            javadoc("The cap of one encoded " + schema.messages.get(0).name
                    + " (the build's max_frame_bytes; for xcc.proto a region slot minus its header).");
            line("public static final int MAX_FRAME_BYTES = " + maxFrameBytes + ";");
            for (Field f : schema.bounded) {
                line("");
                javadoc(f.comment);
                line("public static final int " + f.boundConst + " = " + f.bound + ";");
            }
            close();
            return toString();
        }
    }

    /** The root message class with every other message as a static nested class. */
    static final class ModelWriter extends Source {
        private final Schema schema;
        private final String pkg;
        private final Msg root;
        private final String bounds;
        /** Contract mode (an app's payloads): set instead of a root. */
        private final ContractGenerator.Contract contract;

        ModelWriter(Schema schema, String pkg, Msg root, String bounds) {
            this.schema = schema;
            this.pkg = pkg;
            this.root = root;
            this.bounds = bounds;
            this.contract = null;
        }

        /** An app contract: the outer class holds every message, its bounds and its channel. */
        ModelWriter(Schema schema, ContractGenerator.Contract contract) {
            this.schema = schema;
            this.pkg = contract.pkg;
            this.root = null;
            this.bounds = contract.pkg + "." + contract.outer;
            this.contract = contract;
        }

        String write() {
            if (contract != null) {
                return writeContract();
            }
            line(header().strip()).line("package " + pkg + ";").line("");
            line("import " + bounds + ";").line("");
            line("/**");
            line(" * A mutable, reusable flyweight for one {@code " + root.fullName.substring(1) + "} (" + schema.protoName
                    + "), generated with its bounds");
            line(" * from the options file. Create one per thread at start-up and reuse it: nothing here allocates");
            line(" * except the String conveniences and toString. A oneof is read through its kind and written");
            line(" * through {@code select...()}, which chooses (and clears) a member.");
            line(" */");
            open("public final class " + root.name);
            String boundsClass = bounds.substring(bounds.lastIndexOf('.') + 1);
            line("public static final int MAX_FRAME_BYTES = " + boundsClass + ".MAX_FRAME_BYTES;");
            for (EnumDescriptorProto e : schema.topEnums) {
                enumConstants(e);
            }
            body(root, true);
            for (Msg m : schema.messages) {
                if (m != root) {
                    line("");
                    javadoc(m.comment);
                    open("public static final class " + m.name);
                    body(m, false);
                    close();
                }
            }
            close();
            return toString().replace("{\n\n", "{\n");
        }

        private String writeContract() {
            ContractGenerator.Contract c = contract;
            line(header().strip()).line("package " + pkg + ";").line("");
            line("import " + c.runtimePkg + ".BoundedBytes;");
            line("import " + c.runtimePkg + ".Payload;").line("");
            line("/**");
            line(" * The cross-context payloads of " + schema.protoName + " (an app contract, bridge/contracts), generated");
            line(" * with their bounds from its .options file. Each payload message names the channel that carries");
            line(" * it, its actions and its priority class, and encodes and decodes itself with {@link " + c.codec + "}:");
            line(" * the same classes serve the RT cell (no allocation after start-up) and the Android cell.");
            line(" * Create one message per sender or reader and reuse it.");
            line(" */");
            open("public final class " + c.outer);
            open("private " + c.outer + "()").close();
            for (Field f : schema.bounded) {
                line("");
                javadoc(f.comment);
                line("public static final int " + f.boundConst + " = " + f.bound + ";");
            }
            for (EnumDescriptorProto e : schema.topEnums) {
                enumConstants(e);
            }
            for (Msg m : schema.messages) {
                ContractGenerator.Channel ch = c.channels.get(m);
                line("");
                javadoc(m.comment);
                open("public static final class " + m.name + (ch == null ? "" : " implements Payload"));
                if (ch != null) {
                    javadoc("The cross-context channel that carries it (" + ch.directionText() + ").");
                    line("public static final String CHANNEL = \"" + ch.name + "\";");
                    for (String action : ch.actions) {
                        line("public static final String " + ContractGenerator.actionConst(action) + " = \"" + action + "\";");
                    }
                    javadoc("The sender's priority class on the wire (0..99).");
                    line("public static final int PRIORITY = " + ch.priority + ";");
                }
                javadoc("The most bytes one encoded " + m.name + " takes (every field at its widest).");
                line("public static final int MAX_BYTES = " + c.maxBytes.get(m) + ";");
                body(m, false);
                if (ch != null) {
                    line("");
                    line("@Override");
                    open("public String channel()").line("return CHANNEL;").close();
                    line("");
                    line("@Override");
                    open("public int priority()").line("return PRIORITY;").close();
                    line("");
                    line("@Override");
                    open("public int encode(byte[] dst, int off)").line("return " + c.codec + ".encode(this, dst, off);").close();
                    line("");
                    line("@Override");
                    open("public int decode(byte[] src, int off, int len)")
                            .line("return " + c.codec + ".decode(src, off, len, this);").close();
                }
                close();
            }
            close();
            return toString().replace("{\n\n", "{\n");
        }

        private void enumConstants(EnumDescriptorProto e) {
            line("");
            line("// enum " + e.getName());
            for (EnumValueDescriptorProto v : e.getValueList()) {
                line("public static final int " + v.getName() + " = " + v.getNumber() + ";");
            }
        }

        private String boundRef(Field f) {
            return bounds.substring(bounds.lastIndexOf('.') + 1) + "." + f.boundConst;
        }

        private void body(Msg m, boolean isRoot) {
            for (EnumDescriptorProto e : m.enums) {
                enumConstants(e);
            }
            for (Oneof o : m.oneofs) {
                line("");
                line("public static final int " + o.upper + "_NONE = 0;");
                for (Field f : o.members) {
                    line("public static final int " + o.kindConst(f) + " = " + f.number + ";");
                }
            }
            line("");
            for (Oneof o : m.oneofs) {
                line("private int " + o.camel + "Kind;");
            }
            for (Field f : m.fields) {
                if (f.kind.scalar()) {
                    line("private " + f.kind.javaType + " " + f.camel + ";");
                } else if (f.kind.bounded()) {
                    line("private final BoundedBytes " + f.camel + " = new BoundedBytes(" + boundRef(f) + ", "
                            + (f.kind == Kind.STRING) + ");");
                } else {
                    if (f.oneof == null) {
                        line("private boolean has" + f.cap() + ";");
                    }
                    line("private final " + f.type.name + " " + f.camel + " = new " + f.type.name + "();");
                }
            }
            clear(m);
            for (Oneof o : m.oneofs) {
                oneof(m, o);
            }
            for (Field f : m.fields) {
                accessors(m, f);
            }
            copyFrom(m);
            toStringMethod(m);
        }

        private void clear(Msg m) {
            line("");
            javadoc("Every field to its default; a oneof to none (its members are cleared when selected).");
            open("public " + m.name + " clear()");
            for (Oneof o : m.oneofs) {
                line(o.camel + "Kind = " + o.upper + "_NONE;");
            }
            for (Field f : m.fields) {
                if (f.kind.scalar()) {
                    line(f.camel + " = " + (f.kind == Kind.BOOL ? "false" : "0") + ";");
                } else if (f.kind.bounded()) {
                    line(f.camel + ".clear();");
                } else if (f.oneof == null) {
                    line("has" + f.cap() + " = false;");
                    line(f.camel + ".clear();");
                }
            }
            line("return this;");
            close();
        }

        private void oneof(Msg m, Oneof o) {
            line("");
            StringBuilder kinds = new StringBuilder(o.upper + "_NONE");
            for (Field f : o.members) {
                kinds.append(", ").append(o.kindConst(f));
            }
            javadoc(kinds + " (the field numbers).");
            open("public int " + o.camel + "Kind()").line("return " + o.camel + "Kind;").close();
            line("");
            javadoc("Removes the " + o.name + " member.");
            open("public " + m.name + " clear" + o.cap() + "()").line(o.camel + "Kind = " + o.upper + "_NONE;")
                    .line("return this;").close();
            line("");
            javadoc("Decoder: switch the oneof to {@code kind}; a different previous member is discarded.");
            open("void " + o.camel + "ForMerge(int kind)");
            open("if (" + o.camel + "Kind != kind)");
            line(o.camel + "Kind = kind;");
            open("switch (kind)");
            for (Field f : o.members) {
                line("case " + o.kindConst(f) + ": " + f.camel + ".clear(); break;");
            }
            line("default: break;");
            close().close().close();
            line("");
            open("public static String " + o.camel + "Name(int kind)");
            open("switch (kind)");
            line("case " + o.upper + "_NONE: return \"none\";");
            for (Field f : o.members) {
                line("case " + o.kindConst(f) + ": return \"" + f.name + "\";");
            }
            line("default: return \"unknown\";");
            close().close();
        }

        private void accessors(Msg m, Field f) {
            String self = m.name;
            line("");
            if (f.kind.scalar()) {
                javadoc(f.comment);
                open("public " + f.kind.javaType + " " + f.camel + "()").line("return " + f.camel + ";").close();
                line("");
                open("public " + self + " " + f.camel + "(" + f.kind.javaType + " value)")
                        .line("this." + f.camel + " = value;").line("return this;").close();
            } else if (f.kind.bounded()) {
                javadoc((f.comment == null ? "" : f.comment + " ") + "(bound: " + f.bound + " bytes)");
                open("public BoundedBytes " + f.camel + "()").line("return " + f.camel + ";").close();
                line("");
                if (f.kind == Kind.STRING) {
                    javadoc("Non-real-time convenience: the UTF-8 bytes of {@code value}.");
                    open("public " + self + " " + f.camel + "(String value)").line("this." + f.camel + ".setString(value);")
                            .line("return this;").close();
                    line("");
                    open("public String " + f.camel + "String()").line("return " + f.camel + ".asString();").close();
                } else {
                    javadoc("Copies {@code value} in.");
                    open("public " + self + " " + f.camel + "(byte[] value)")
                            .line("this." + f.camel + ".set(value, 0, value.length);").line("return this;").close();
                }
            } else if (f.oneof != null) {
                Oneof o = f.oneof;
                javadoc((f.comment == null ? "" : f.comment + " ") + "(meaningful when {@code " + o.camel + "Kind() == "
                        + o.kindConst(f) + "})");
                open("public " + f.type.name + " " + f.camel + "()").line("return " + f.camel + ";").close();
                line("");
                javadoc("Makes the " + f.name + " the " + o.name + ", cleared, and returns it.");
                open("public " + f.type.name + " select" + f.cap() + "()").line(o.camel + "Kind = " + o.kindConst(f) + ";")
                        .line("return " + f.camel + ".clear();").close();
            } else {
                open("public boolean has" + f.cap() + "()").line("return has" + f.cap() + ";").close();
                line("");
                javadoc((f.comment == null ? "" : f.comment + " ") + "(meaningful when {@code has" + f.cap() + "()})");
                open("public " + f.type.name + " " + f.camel + "()").line("return " + f.camel + ";").close();
                line("");
                javadoc("Marks the " + f.name + " present, cleared, and returns it.");
                open("public " + f.type.name + " select" + f.cap() + "()").line("has" + f.cap() + " = true;")
                        .line("return " + f.camel + ".clear();").close();
                line("");
                open("public " + self + " clear" + f.cap() + "()").line("has" + f.cap() + " = false;")
                        .line("return this;").close();
                line("");
                javadoc("Decoder: present, and cleared the first time.");
                open(f.type.name + " " + f.camel + "ForMerge()");
                open("if (!has" + f.cap() + ")").line("has" + f.cap() + " = true;").line(f.camel + ".clear();").close();
                line("return " + f.camel + ";");
                close();
            }
        }

        private void copyFrom(Msg m) {
            line("");
            javadoc("Copies every field of {@code other}. Allocation-free.");
            open("public " + m.name + " copyFrom(" + m.name + " other)");
            for (Oneof o : m.oneofs) {
                line(o.camel + "Kind = other." + o.camel + "Kind;");
            }
            for (Field f : m.fields) {
                if (f.kind.scalar()) {
                    line("this." + f.camel + " = other." + f.camel + ";");
                } else if (f.kind.bounded()) {
                    line("this." + f.camel + ".set(other." + f.camel + ");");
                } else {
                    if (f.oneof == null) {
                        line("has" + f.cap() + " = other.has" + f.cap() + ";");
                    }
                    line("this." + f.camel + ".copyFrom(other." + f.camel + ");");
                }
            }
            line("return this;");
            close();
        }

        private void toStringMethod(Msg m) {
            line("");
            line("@Override");
            open("public String toString()");
            line("StringBuilder sb = new StringBuilder();");
            for (Field f : m.byNumber) {
                String label = "\", " + f.name + "=\"";
                switch (f.kind) {
                    case UINT64:
                    case FIXED64:
                        line("sb.append(" + label + ").append(Long.toUnsignedString(this." + f.camel + "));");
                        break;
                    case UINT32:
                    case FIXED32:
                        line("sb.append(" + label + ").append(Integer.toUnsignedString(this." + f.camel + "));");
                        break;
                    case MESSAGE:
                        String present = f.oneof == null ? "has" + f.cap()
                                : f.oneof.camel + "Kind == " + f.oneof.kindConst(f);
                        open("if (" + present + ")").line("sb.append(" + label + ").append(this." + f.camel + ");").close();
                        break;
                    default:
                        line("sb.append(" + label + ").append(this." + f.camel + ");");
                        break;
                }
            }
            for (Oneof o : m.oneofs) {
                open("if (" + o.camel + "Kind == " + o.upper + "_NONE)").line("sb.append(\", no " + o.name + "\");").close();
            }
            line("return \"" + m.name + "{\" + (sb.length() == 0 ? \"\" : sb.substring(2)) + \"}\";");
            close();
        }
    }

    /** The static codec: sizeOfX / writeX / decodeX per message, over ProtoWire. */
    static final class CodecWriter extends Source {
        private final Schema schema;
        private final String pkg;
        private final Msg root;
        private final String codec;
        private final String bounds;
        private final ContractGenerator.Contract contract;

        CodecWriter(Schema schema, String pkg, Msg root, String codec, String bounds) {
            this.schema = schema;
            this.pkg = pkg;
            this.root = root;
            this.codec = codec;
            this.bounds = bounds;
            this.contract = null;
        }

        /** An app contract's codec: public encode / encodedSize / decode for every payload message. */
        CodecWriter(Schema schema, ContractGenerator.Contract contract) {
            this.schema = schema;
            this.pkg = contract.pkg;
            this.root = null;
            this.codec = contract.codec;
            this.bounds = contract.pkg + "." + contract.outer;
            this.contract = contract;
        }

        private String type(Msg m) {
            if (root == null) {
                return contract.outer + "." + m.name;
            }
            return m == root ? root.name : root.name + "." + m.name;
        }

        private String writeContract() {
            String cap = "PayloadBounds.MAX_PAYLOAD_BYTES";
            line(header().strip()).line("package " + pkg + ";").line("");
            line("import " + contract.runtimePkg + ".PayloadBounds;");
            line("import " + contract.runtimePkg + ".ProtoWire;").line("");
            line("/**");
            line(" * Codec of the payloads of {@link " + contract.outer + "} (" + schema.protoName + ") over byte arrays: no");
            line(" * allocation, no reflection, output byte-identical to protobuf's canonical encoding. Decoding accepts");
            line(" * what protobuf accepts from a well-behaved peer (unknown fields skipped: a newer peer may add");
            line(" * fields) and refuses the rest with a negative code of {@link ProtoWire}.");
            line(" */");
            open("public final class " + codec + " extends ProtoWire");
            open("private " + codec + "()").close();
            for (Msg m : schema.messages) {
                if (contract.channels.get(m) != null) {
                    entryPoints(type(m), m.name, "m", cap, "ERR_INVALID_UTF8", "value");
                }
            }
            return helpersAndClose();
        }

        String write() {
            if (contract != null) {
                return writeContract();
            }
            String r = root.name;
            line(header().strip()).line("package " + pkg + ";").line("");
            line("/**");
            line(" * Codec of {@link " + r + "} (" + schema.protoName + ") over byte arrays: no allocation, no reflection,");
            line(" * output byte-identical to protobuf's canonical encoding (fields in number order, defaults");
            line(" * omitted, a set oneof member or present sub-message always written). Decoding accepts what");
            line(" * protobuf accepts from a well-behaved peer (any field order, non-minimal varints, explicit");
            line(" * defaults, unknown fields skipped, open enums) and refuses the rest with a negative code of");
            line(" * {@link ProtoWire}; strings and bytes are held to the bounds of " + bounds.substring(bounds.lastIndexOf('.') + 1) + ".");
            line(" */");
            open("public final class " + codec + " extends ProtoWire");
            open("private " + codec + "()").close();
            entryPoints(r, r, "frame", r + ".MAX_FRAME_BYTES", "ERR_NO_BODY, ERR_INVALID_UTF8", "frame");
            return helpersAndClose();
        }

        /** The private sizeOf / write / decode of every message, and the end of the class. */
        private String helpersAndClose() {
            for (Msg m : schema.messages) {
                size(m);
                write(m);
                decode(m);
            }
            close();
            return toString();
        }

        /**
         * The public encode / encodedSize / decode of one message type {@code t} (its private
         * helpers are named after {@code stem}), held to {@code cap} bytes.
         */
        private void entryPoints(String t, String stem, String arg, String cap, String sizeErrors, String what) {
            line("");
            javadoc("Encodes {@code " + arg + "} at {@code dst[off]}. Returns the encoded length, or a negative code "
                    + "(" + sizeErrors + ", ERR_OVERSIZE, ERR_DST_TOO_SMALL) with nothing promised about dst.");
            open("public static int encode(" + t + " " + arg + ", byte[] dst, int off)");
            line("int size = encodedSize(" + arg + ");");
            open("if (size < 0)").line("return size;").close();
            open("if (size > " + cap + ")").line("return ERR_OVERSIZE;").close();
            open("if (off < 0 || off > dst.length - size)").line("return ERR_DST_TOO_SMALL;").close();
            line("return write" + stem + "(dst, off, " + arg + ") - off;");
            close();
            line("");
            javadoc("The encoded length of {@code " + arg + "}, or " + sizeErrors.replace(", ", " / ") + ".");
            open("public static int encodedSize(" + t + " " + arg + ")").line("return sizeOf" + stem + "(" + arg + ");").close();
            line("");
            javadoc("Decodes {@code src[off, off+len)} into {@code into} (cleared first). Returns OK or a negative code; "
                    + "after an error {@code into} holds a partial " + what + " that must not be used.");
            open("public static int decode(byte[] src, int off, int len, " + t + " into)");
            line("into.clear();");
            open("if (off < 0 || len < 0 || off > src.length - len)").line("return ERR_BAD_LENGTH;").close();
            open("if (len > " + cap + ")").line("return ERR_OVERSIZE;").close();
            line("return decode" + stem + "(src, off, off + len, into);");
            close();
        }

        /** The condition under which sub-message field {@code f} of {@code m} is written. */
        private String present(Msg m, Field f) {
            return f.oneof == null ? "m.has" + f.cap() + "()"
                    : "m." + f.oneof.camel + "Kind() == " + type(m) + "." + f.oneof.kindConst(f);
        }

        private void size(Msg m) {
            line("");
            open("private static int sizeOf" + m.name + "(" + type(m) + " m)");
            StringBuilder utf8 = new StringBuilder();
            for (Field f : m.fields) {
                if (f.kind == Kind.STRING) {
                    utf8.append(utf8.length() == 0 ? "" : " || ").append("!validUtf8(m.").append(f.camel).append("())");
                }
            }
            if (utf8.length() > 0) {
                open("if (" + utf8 + ")").line("return ERR_INVALID_UTF8;").close();
            }
            line("int size = 0;");
            for (Field f : m.byNumber) {
                if (f.kind.scalar()) {
                    line("size += " + f.kind.wire + "Size(" + f.tag() + ", m." + f.camel + "());");
                } else if (f.kind.bounded()) {
                    line("size += bytesSize(" + f.tag() + ", m." + f.camel + "());");
                } else {
                    open("if (" + present(m, f) + ")");
                    line("int n = sizeOf" + f.type.name + "(m." + f.camel + "());");
                    open("if (n < 0)").line("return n;").close();
                    line("size += messageSize(" + f.tag() + ", n);");
                    close();
                }
            }
            if (m == root) {
                for (Oneof o : m.oneofs) {
                    open("if (m." + o.camel + "Kind() == " + type(m) + "." + o.upper + "_NONE)").line("return ERR_NO_BODY;").close();
                }
            }
            line("return size;");
            close();
        }

        private void write(Msg m) {
            line("");
            open("private static int write" + m.name + "(byte[] b, int pos, " + type(m) + " m)");
            for (Field f : m.byNumber) {
                if (f.kind.scalar()) {
                    String w = f.kind.wire;
                    line("pos = write" + Character.toUpperCase(w.charAt(0)) + w.substring(1) + "(b, pos, " + f.tag()
                            + ", m." + f.camel + "());");
                } else if (f.kind.bounded()) {
                    line("pos = writeBytes(b, pos, " + f.tag() + ", m." + f.camel + "());");
                } else {
                    open("if (" + present(m, f) + ")");
                    line("pos = writeMessageHeader(b, pos, " + f.tag() + ", sizeOf" + f.type.name + "(m." + f.camel + "()));");
                    line("pos = write" + f.type.name + "(b, pos, m." + f.camel + "());");
                    close();
                }
            }
            line("return pos;");
            close();
        }

        /** The ProtoWire reader that checks a scalar of this kind. */
        private static String scalarEnd(Kind k) {
            switch (k) {
                case UINT32: case SINT32: return "uint32End";
                case INT32: case ENUM: return "int32End";
                case FIXED32: case SFIXED32: case FLOAT: return "fixed32End";
                case FIXED64: case SFIXED64: case DOUBLE: return "fixed64End";
                default: return "varintEnd";
            }
        }

        /** The value of a scalar the reader accepted at {@code at}. */
        private static String scalarValue(Kind k) {
            switch (k) {
                case BOOL: return "varintAt(b, at) != 0";
                case UINT32: case INT32: case ENUM: return "(int) varintAt(b, at)";
                case SINT32: return "zigzag32(varintAt(b, at))";
                case SINT64: return "zigzag64(varintAt(b, at))";
                case FIXED32: case SFIXED32: return "fixed32At(b, at)";
                case FLOAT: return "Float.intBitsToFloat(fixed32At(b, at))";
                case FIXED64: case SFIXED64: return "fixed64At(b, at)";
                case DOUBLE: return "Double.longBitsToDouble(fixed64At(b, at))";
                default: return "varintAt(b, at)";
            }
        }

        private void decode(Msg m) {
            line("");
            open("private static int decode" + m.name + "(byte[] b, int pos, int end, " + type(m) + " m)");
            line("int seen = 0;");
            open("while (pos < end)");
            line("int tagAt = pos;");
            line("pos = tagEnd(b, pos, end);");
            open("if (pos < 0)").line("return pos;").close();
            line("long tag = varintAt(b, tagAt);");
            line("int wt = (int) (tag & 7);");
            open("switch ((int) (tag >>> 3))");
            for (Field f : m.byNumber) {
                open("case " + f.number + ":");
                line("pos = checkKnown(seen, 1 << " + f.bit + ", wt, " + f.kind.wireTypeConst() + ", pos);");
                open("if (pos < 0)").line("return pos;").close();
                line("seen |= 1 << " + f.bit + ";");
                switch (f.kind) {
                    case STRING:
                        line("pos = readString(b, pos, end, m." + f.camel + "());");
                        break;
                    case BYTES:
                        line("pos = readBytes(b, pos, end, m." + f.camel + "());");
                        break;
                    case MESSAGE: {
                        line("int at = pos;");
                        line("pos = lengthEnd(b, pos, end);");
                        open("if (pos < 0)").line("return pos;").close();
                        line("int subEnd = pos + (int) varintAt(b, at);");
                        String into;
                        if (f.oneof == null) {
                            into = "m." + f.camel + "ForMerge()";
                        } else {
                            line("m." + f.oneof.camel + "ForMerge(" + type(m) + "." + f.oneof.kindConst(f) + ");");
                            into = "m." + f.camel + "()";
                        }
                        line("int r = decode" + f.type.name + "(b, pos, subEnd, " + into + ");");
                        open("if (r < 0)").line("return r;").close();
                        line("pos = subEnd;");
                        break;
                    }
                    default: {
                        String end = scalarEnd(f.kind);
                        String value = scalarValue(f.kind);
                        line("int at = pos;");
                        line("pos = " + end + "(b, pos, end);");
                        open("if (pos < 0)").line("return pos;").close();
                        line("m." + f.camel + "(" + value + ");");
                        break;
                    }
                }
                line("break;");
                close();
            }
            line("default:");
            line("    pos = skipField(b, pos, end, wt);");
            line("    break;");
            close();
            open("if (pos < 0)").line("return pos;").close();
            close();
            if (m == root && !m.oneofs.isEmpty()) {
                StringBuilder none = new StringBuilder();
                for (Oneof o : m.oneofs) {
                    none.append(none.length() == 0 ? "" : " || ").append("m.").append(o.camel).append("Kind() == ")
                            .append(type(m)).append(".").append(o.upper).append("_NONE");
                }
                line("return " + none + " ? ERR_NO_BODY : OK;");
            } else {
                line("return OK;");
            }
            close();
        }
    }
}
