package org.rtdroid.android.cell.os;

import android.content.ComponentName;
import android.content.Intent;
import android.os.Bundle;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An Intent as the system server's IPC carries it between processes (AOSP parcels it): copied by
 * value as {@code key=value} lines, never passed by reference. {@code action}, {@code package},
 * {@code component} (PKG/CLASS), {@code flags}, and the extras by type: {@code extra.NAME}
 * (a string, URL-encoded), {@code int.NAME}, {@code long.NAME}, {@code bool.NAME},
 * {@code float.NAME}, {@code double.NAME}, {@code bytes.NAME} (hex). An extra of another type
 * does not cross (it is named in the error).
 */
public final class IntentWire {
    private IntentWire() {
    }

    /** The Intent's lines, each ending in a newline. */
    public static String encode(Intent intent) {
        StringBuilder b = new StringBuilder();
        if (intent.getAction() != null) {
            b.append("action=").append(enc(intent.getAction())).append('\n');
        }
        if (intent.getPackage() != null) {
            b.append("package=").append(intent.getPackage()).append('\n');
        }
        if (intent.getComponent() != null) {
            b.append("component=").append(intent.getComponent().getPackageName()).append('/')
                    .append(intent.getComponent().getClassName()).append('\n');
        }
        if (intent.getFlags() != 0) {
            b.append("flags=").append(intent.getFlags()).append('\n');
        }
        Bundle extras = intent.getExtras();
        if (extras != null) {
            for (String k : extras.keySet()) {
                Object v = extras.get(k);
                String kind = switch (v) {
                    case String s -> "extra";
                    case Integer i -> "int";
                    case Long l -> "long";
                    case Boolean z -> "bool";
                    case Float f -> "float";
                    case Double d -> "double";
                    case byte[] bytes -> "bytes";
                    case null -> null;
                    default -> throw new IllegalArgumentException("extra '" + k + "' of type " + v.getClass().getName()
                            + " cannot cross a process (string, int, long, bool, float, double, bytes)");
                };
                if (kind != null) {
                    b.append(kind).append('.').append(enc(k)).append('=')
                            .append(v instanceof byte[] bytes ? HexFormat.of().formatHex(bytes)
                                    : v instanceof String s ? enc(s) : v.toString()).append('\n');
                }
            }
        }
        return b.toString();
    }

    /**
     * The Intent that {@code fields} describe (the caller has taken its own keys out);
     * IllegalArgumentException naming the first field that is none of an Intent's or is malformed.
     */
    public static Intent decode(Map<String, String> fields) {
        Intent intent = new Intent();
        for (Map.Entry<String, String> e : fields.entrySet()) {
            String k = e.getKey();
            String v = e.getValue();
            int dot = k.indexOf('.');
            String kind = dot > 0 ? k.substring(0, dot) : k;
            String name = dot > 0 ? dec(k.substring(dot + 1)) : null;
            try {
                switch (kind) {
                    case "action" -> intent.setAction(dec(v));
                    case "package" -> intent.setPackage(v);
                    case "component" -> {
                        ComponentName cn = ComponentName.unflattenFromString(v);
                        if (cn == null) {
                            throw new IllegalArgumentException("not PACKAGE/CLASS");
                        }
                        intent.setComponent(cn);
                    }
                    case "flags" -> intent.setFlags(Integer.parseInt(v));
                    case "extra" -> intent.putExtra(name, dec(v));
                    case "int" -> intent.putExtra(name, Integer.parseInt(v));
                    case "long" -> intent.putExtra(name, Long.parseLong(v));
                    case "bool" -> intent.putExtra(name, parseBoolean(v));
                    case "float" -> intent.putExtra(name, Float.parseFloat(v));
                    case "double" -> intent.putExtra(name, Double.parseDouble(v));
                    case "bytes" -> intent.putExtra(name, HexFormat.of().parseHex(v));
                    default -> throw new IllegalArgumentException("no such field of an Intent");
                }
                if (dot < 0 && !k.equals(kind) || dot > 0 && (name == null || name.isEmpty())) {
                    throw new IllegalArgumentException("an extra needs a name");
                }
            } catch (IllegalArgumentException x) {
                throw new IllegalArgumentException("field " + k + "='" + v + "': " + x.getMessage());
            }
        }
        return intent;
    }

    /** The {@code key=value} lines after a request's method line. */
    public static Map<String, String> fields(String[] lines, int from) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = from; i < lines.length; i++) {
            int eq = lines[i].indexOf('=');
            if (eq > 0) {
                m.put(lines[i].substring(0, eq), lines[i].substring(eq + 1));
            }
        }
        return m;
    }

    private static boolean parseBoolean(String v) {
        if (!v.equals("true") && !v.equals("false")) {
            throw new IllegalArgumentException("not true or false");
        }
        return v.equals("true");
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String dec(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }
}
