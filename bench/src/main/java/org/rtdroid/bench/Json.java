package org.rtdroid.bench;

import java.util.Iterator;
import java.util.List;
import java.util.Map;

/** A minimal JSON writer for the report (maps, lists, strings, numbers, booleans, null). */
final class Json {
    private Json() {}

    static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value, 0);
        sb.append('\n');
        return sb.toString();
    }

    private static void write(StringBuilder sb, Object v, int indent) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof String s) {
            string(sb, s);
        } else if (v instanceof Boolean || v instanceof Integer || v instanceof Long) {
            sb.append(v);
        } else if (v instanceof Double d) {
            sb.append(d.isNaN() || d.isInfinite() ? "null" : d.toString());
        } else if (v instanceof Map<?, ?> m) {
            sb.append('{');
            Iterator<? extends Map.Entry<?, ?>> it = m.entrySet().iterator();
            boolean flat = indent >= 2;
            while (it.hasNext()) {
                Map.Entry<?, ?> e = it.next();
                newline(sb, indent + 1, flat);
                string(sb, e.getKey().toString());
                sb.append(": ");
                write(sb, e.getValue(), indent + 1);
                if (it.hasNext()) {
                    sb.append(',');
                }
            }
            newline(sb, indent, flat);
            sb.append('}');
        } else if (v instanceof List<?> l) {
            sb.append('[');
            for (int i = 0; i < l.size(); i++) {
                newline(sb, indent + 1, false);
                write(sb, l.get(i), indent + 1);
                if (i + 1 < l.size()) {
                    sb.append(',');
                }
            }
            newline(sb, indent, false);
            sb.append(']');
        } else {
            string(sb, v.toString());
        }
    }

    private static void newline(StringBuilder sb, int indent, boolean flat) {
        if (flat) {
            sb.append(' ');
            return;
        }
        sb.append('\n');
        sb.append("  ".repeat(indent));
    }

    private static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
