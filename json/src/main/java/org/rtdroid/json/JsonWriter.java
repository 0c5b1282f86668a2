package org.rtdroid.json;

import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The project's one JSON writer in Java: stats, dumps, control answers and benchmark reports all go
 * through it, so quoting and number rules are the same everywhere. Non-real-time (it allocates).
 *
 * <p>Streaming use: {@code new JsonWriter().beginObject().field("frames", 3).name("peers")
 * .beginArray()...endArray().endObject().toString()}; commas are placed by the writer. Tree use:
 * {@link #write(Object)} renders maps, lists, strings, numbers, booleans and null, indented.
 * Compiles at Java 11, the level the Android proxy's APK reads.
 */
public final class JsonWriter {
    private static final int MAX_DEPTH = 64;

    private final StringBuilder sb;
    /** first[d]: nothing written yet in the container at depth d (d = 0 is the top level). */
    private final boolean[] first = new boolean[MAX_DEPTH + 1];
    private int depth;
    private boolean afterName;

    public JsonWriter() {
        this(256);
    }

    public JsonWriter(int capacity) {
        sb = new StringBuilder(capacity);
        first[0] = true;
    }

    public JsonWriter beginObject() {
        return open('{');
    }

    public JsonWriter endObject() {
        return close('}');
    }

    public JsonWriter beginArray() {
        return open('[');
    }

    public JsonWriter endArray() {
        return close(']');
    }

    /** The next value's key, inside an object. */
    public JsonWriter name(String name) {
        separate();
        quote(sb, name);
        sb.append(':');
        afterName = true;
        return this;
    }

    public JsonWriter value(String v) {
        separate();
        if (v == null) {
            sb.append("null");
        } else {
            quote(sb, v);
        }
        return this;
    }

    public JsonWriter value(long v) {
        separate();
        sb.append(v);
        return this;
    }

    /** A 64-bit counter that the region holds unsigned. */
    public JsonWriter unsignedValue(long v) {
        separate();
        sb.append(Long.toUnsignedString(v));
        return this;
    }

    /** NaN and infinities have no JSON form: they are written as null. */
    public JsonWriter value(double v) {
        separate();
        sb.append(Double.isNaN(v) || Double.isInfinite(v) ? "null" : Double.toString(v));
        return this;
    }

    /**
     * {@code v} with exactly {@code fractionDigits} digits after the point ({@code 0.375000}), for
     * reports whose readers compare the text; NaN and infinities are written as null.
     */
    public JsonWriter value(double v, int fractionDigits) {
        if (fractionDigits < 0) {
            throw new IllegalArgumentException("fraction digits " + fractionDigits + " < 0");
        }
        separate();
        sb.append(Double.isNaN(v) || Double.isInfinite(v)
                ? "null" : String.format(Locale.ROOT, "%." + fractionDigits + "f", v));
        return this;
    }

    public JsonWriter value(boolean v) {
        separate();
        sb.append(v);
        return this;
    }

    /** A value that is already JSON (another writer's output). */
    public JsonWriter rawValue(String json) {
        separate();
        sb.append(json);
        return this;
    }

    public JsonWriter field(String name, String v) {
        return name(name).value(v);
    }

    public JsonWriter field(String name, long v) {
        return name(name).value(v);
    }

    public JsonWriter field(String name, double v) {
        return name(name).value(v);
    }

    public JsonWriter field(String name, double v, int fractionDigits) {
        return name(name).value(v, fractionDigits);
    }

    public JsonWriter field(String name, boolean v) {
        return name(name).value(v);
    }

    public JsonWriter unsignedField(String name, long v) {
        return name(name).unsignedValue(v);
    }

    public JsonWriter rawField(String name, String json) {
        return name(name).rawValue(json);
    }

    @Override
    public String toString() {
        return sb.toString();
    }

    private JsonWriter open(char bracket) {
        separate();
        if (depth == MAX_DEPTH) {
            throw new IllegalStateException("JSON nested deeper than " + MAX_DEPTH);
        }
        sb.append(bracket);
        first[++depth] = true;
        return this;
    }

    private JsonWriter close(char bracket) {
        if (depth == 0) {
            throw new IllegalStateException("'" + bracket + "' closes nothing");
        }
        depth--;
        sb.append(bracket);
        return this;
    }

    private void separate() {
        if (afterName) {
            afterName = false;
            return;
        }
        if (!first[depth]) {
            sb.append(',');
        }
        first[depth] = false;
    }

    /** {@code s} as a JSON string literal, or {@code null}. */
    public static String quote(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder(s.length() + 2);
        quote(out, s);
        return out.toString();
    }

    /** Appends {@code s} as a JSON string literal. */
    public static void quote(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                case '\t': out.append("\\t"); break;
                default:
                    if (c < 0x20) {
                        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
            }
        }
        out.append('"');
    }

    /**
     * A tree of maps (keys by their string form), lists, strings, numbers, booleans and null,
     * indented two spaces for its first two levels and flat below (a report stays readable without
     * a line per histogram bucket), ending in a newline. Other objects are written as their
     * {@code toString()}, quoted.
     */
    public static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(out, value, 0);
        return out.append('\n').toString();
    }

    private static void write(StringBuilder out, Object v, int indent) {
        if (v == null) {
            out.append("null");
        } else if (v instanceof String) {
            quote(out, (String) v);
        } else if (v instanceof Boolean || v instanceof Integer || v instanceof Long
                || v instanceof Short || v instanceof Byte) {
            out.append(v);
        } else if (v instanceof Number) {
            double d = ((Number) v).doubleValue();
            out.append(Double.isNaN(d) || Double.isInfinite(d) ? "null" : Double.toString(d));
        } else if (v instanceof Map) {
            out.append('{');
            Iterator<? extends Map.Entry<?, ?>> it = ((Map<?, ?>) v).entrySet().iterator();
            boolean flat = indent >= 2;
            while (it.hasNext()) {
                Map.Entry<?, ?> e = it.next();
                newline(out, indent + 1, flat);
                quote(out, String.valueOf(e.getKey()));
                out.append(": ");
                write(out, e.getValue(), indent + 1);
                if (it.hasNext()) {
                    out.append(',');
                }
            }
            newline(out, indent, flat);
            out.append('}');
        } else if (v instanceof List) {
            List<?> l = (List<?>) v;
            out.append('[');
            for (int i = 0; i < l.size(); i++) {
                newline(out, indent + 1, false);
                write(out, l.get(i), indent + 1);
                if (i + 1 < l.size()) {
                    out.append(',');
                }
            }
            newline(out, indent, false);
            out.append(']');
        } else {
            quote(out, v.toString());
        }
    }

    private static void newline(StringBuilder out, int indent, boolean flat) {
        if (flat) {
            out.append(' ');
            return;
        }
        out.append('\n');
        for (int i = 0; i < indent; i++) {
            out.append("  ");
        }
    }
}
