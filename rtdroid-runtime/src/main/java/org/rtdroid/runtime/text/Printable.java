package org.rtdroid.runtime.text;

/**
 * Text that came from outside a trust boundary (a manifest, a bundle's entry names, a trace file,
 * a frame), made safe to print or log: one line, no control characters, nothing a terminal or a
 * log reader would act on. The host reads markers such as {@code RTCELL READY} only as whole lines
 * of a cell's console; text escaped here can never begin or end a line, so it can never forge one.
 *
 * <p>The rule (the Python CLI's {@code xcc.printable.escape} is the same, held by
 * {@code bridge/vectors/printable.json}): a backslash is doubled; newline, carriage return and tab
 * are {@code \n}, {@code \r}, {@code \t}; every other C0 or C1 control character and DEL is
 * {@code \xNN}; the Unicode line and paragraph separators, the bidirectional embedding, override
 * and isolate controls and lone surrogates are {@code \}{@code uNNNN}. Everything else is kept.
 */
public final class Printable {
    private Printable() {}

    /** {@code text} escaped by the rule above ("null" for null). */
    public static String escape(CharSequence text) {
        return escape(text, false);
    }

    /**
     * {@code text} as one line for a log or a console, whatever it holds: the rule above, except
     * that a backslash stays as it is, so a message whose quotes are already escaped reads the same.
     * What a log sink applies to every record it writes (the quotes in it were escaped where they
     * were made; this is what keeps a record one line if one was not).
     */
    public static String oneLine(CharSequence text) {
        return escape(text, true);
    }

    private static String escape(CharSequence text, boolean keepBackslash) {
        if (text == null) {
            return "null";
        }
        int n = text.length();
        int i = 0;
        while (i < n && (plain(text, i) || keepBackslash && text.charAt(i) == '\\')) {
            i++;
        }
        if (i == n) {
            return text.toString();
        }
        StringBuilder out = new StringBuilder(n + 16).append(text, 0, i);
        for (; i < n; i++) {
            char c = text.charAt(i);
            if (plain(text, i) || keepBackslash && c == '\\') {
                out.append(c);
                continue;
            }
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x100) {
                        out.append("\\x").append(HEX[c >> 4]).append(HEX[c & 0xf]);
                    } else {
                        out.append("\\u").append(HEX[c >> 12]).append(HEX[(c >> 8) & 0xf])
                                .append(HEX[(c >> 4) & 0xf]).append(HEX[c & 0xf]);
                    }
                }
            }
        }
        return out.toString();
    }

    /** {@code 'text'}, escaped: how a message quotes a value it did not write itself. */
    public static String quote(CharSequence text) {
        return "'" + escape(text) + "'";
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private static boolean plain(CharSequence s, int i) {
        char c = s.charAt(i);
        if (c < 0x20 || c == '\\' || (c >= 0x7f && c < 0xa0)) {
            return false;
        }
        if (c == 0x2028 || c == 0x2029 || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) {
            return false;
        }
        if (Character.isHighSurrogate(c)) {
            return i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
        }
        if (Character.isLowSurrogate(c)) {
            return i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
        }
        return true;
    }
}
