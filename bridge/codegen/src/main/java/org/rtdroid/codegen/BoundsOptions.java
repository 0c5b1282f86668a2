package org.rtdroid.codegen;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code max_size} lines of a nanopb options file (bridge/proto/xcc.options), the one source of
 * every byte bound: {@code <package>.<Message>.<field>  max_size:<n>}; {@code #} starts a comment.
 * Any other option is refused: the Java and Python codecs enforce exactly these bounds.
 */
final class BoundsOptions {
    private static final Pattern LINE = Pattern.compile("^\\s*([A-Za-z0-9_.]+)\\s+max_size:(\\d+)\\s*$");

    private BoundsOptions() {
    }

    /** Full field name → nanopb max_size, in file order. */
    static Map<String, Integer> read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new GeneratorException("cannot read options file " + file + ": " + e.getMessage());
        }
        Map<String, Integer> maxSize = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            int hash = line.indexOf('#');
            if (hash >= 0) {
                line = line.substring(0, hash);
            }
            if (line.isBlank()) {
                continue;
            }
            Matcher m = LINE.matcher(line);
            if (!m.matches()) {
                throw new GeneratorException(file + " line " + (i + 1) + ": expected '<package>.<Message>.<field> max_size:<n>', got '"
                        + lines.get(i).strip() + "'");
            }
            if (maxSize.put(m.group(1), Integer.parseInt(m.group(2))) != null) {
                throw new GeneratorException(file + " line " + (i + 1) + ": " + m.group(1) + " has a second max_size");
            }
        }
        return maxSize;
    }
}
