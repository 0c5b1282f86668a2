package org.rtdroid.android.cell.control;

import org.rtdroid.android.cell.os.CellException;

import java.util.LinkedHashMap;
import java.util.Map;
import org.rtdroid.json.JsonWriter;

/** Just enough JSON for the control interface: flat request objects in; quoting out is JsonWriter's. */
public final class Json {
    private final String s;
    private int i;

    private Json(String s) {
        this.s = s;
    }

    /** Parses a JSON object whose values are strings, numbers, booleans or null. */
    static Map<String, Object> parseObject(String text) throws CellException {
        Json p = new Json(text == null ? "" : text);
        p.ws();
        if (p.i >= p.s.length()) {
            return new LinkedHashMap<>();
        }
        Map<String, Object> m = new LinkedHashMap<>();
        p.expect('{');
        p.ws();
        if (p.peek() == '}') {
            p.i++;
            return m;
        }
        while (true) {
            p.ws();
            String key = p.string();
            p.ws();
            p.expect(':');
            p.ws();
            m.put(key, p.value());
            p.ws();
            char c = p.next();
            if (c == '}') {
                break;
            }
            if (c != ',') {
                throw p.error("expected ',' or '}'");
            }
        }
        p.ws();
        if (p.i != p.s.length()) {
            throw p.error("trailing characters");
        }
        return m;
    }

    private Object value() throws CellException {
        char c = peek();
        if (c == '"') {
            return string();
        }
        if (s.startsWith("true", i)) {
            i += 4;
            return Boolean.TRUE;
        }
        if (s.startsWith("false", i)) {
            i += 5;
            return Boolean.FALSE;
        }
        if (s.startsWith("null", i)) {
            i += 4;
            return null;
        }
        int start = i;
        while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
            i++;
        }
        if (start == i) {
            throw error("expected a string, number, boolean or null (nested values are not accepted)");
        }
        try {
            String n = s.substring(start, i);
            return n.contains(".") || n.contains("e") || n.contains("E") ? (Object) Double.parseDouble(n)
                    : (Object) Long.parseLong(n);
        } catch (NumberFormatException e) {
            throw error("bad number");
        }
    }

    private String string() throws CellException {
        expect('"');
        StringBuilder b = new StringBuilder();
        while (true) {
            if (i >= s.length()) {
                throw error("unterminated string");
            }
            char c = s.charAt(i++);
            if (c == '"') {
                return b.toString();
            }
            if (c == '\\') {
                char e = next();
                switch (e) {
                    case 'n': b.append('\n'); break;
                    case 't': b.append('\t'); break;
                    case 'r': b.append('\r'); break;
                    case 'b': b.append('\b'); break;
                    case 'f': b.append('\f'); break;
                    case 'u':
                        if (i + 4 > s.length()) {
                            throw error("bad \\u escape");
                        }
                        b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                        break;
                    default: b.append(e);
                }
            } else {
                b.append(c);
            }
        }
    }

    private void ws() {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
    }

    private char peek() throws CellException {
        if (i >= s.length()) {
            throw error("unexpected end");
        }
        return s.charAt(i);
    }

    private char next() throws CellException {
        char c = peek();
        i++;
        return c;
    }

    private void expect(char c) throws CellException {
        if (next() != c) {
            throw error("expected '" + c + "'");
        }
    }

    private CellException error(String what) {
        return new CellException(400, "malformed JSON body at offset " + i + ": " + what);
    }

    /** The project's one JSON quoting (bridge/java's JsonWriter); "null" for null. */
    static String quote(String v) {
        return JsonWriter.quote(v);
    }
}
