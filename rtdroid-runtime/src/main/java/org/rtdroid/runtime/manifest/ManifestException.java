package org.rtdroid.runtime.manifest;

import org.rtdroid.runtime.text.Printable;

/**
 * A manifest that does not parse or does not validate. The message always names the file, the line
 * and column (line 0 when the problem is not tied to one line; no column when it is not known), the
 * element and the problem, as {@code <file>:<line>:<column>: <element>: <problem>}. The element and
 * the problem quote the manifest, so both are escaped ({@link Printable}): the message is one line
 * whatever the manifest holds.
 */
public final class ManifestException extends Exception {
    private final String sourceName;
    private final int line;
    private final int column;
    private final String element;
    private final String problem;

    public ManifestException(String sourceName, int line, int column, String element, String problem) {
        super(Printable.escape(sourceName) + ":" + line + (column > 0 ? ":" + column : "") + ": <"
                + Printable.escape(element) + ">: " + Printable.escape(problem));
        this.sourceName = sourceName;
        this.line = line;
        this.column = column;
        this.element = Printable.escape(element);
        this.problem = Printable.escape(problem);
    }

    public ManifestException(String sourceName, int line, String element, String problem) {
        this(sourceName, line, 0, element, problem);
    }

    public ManifestException(String sourceName, int line, int column, String element, String problem, Throwable cause) {
        this(sourceName, line, column, element, problem);
        initCause(cause);
    }

    public ManifestException(String sourceName, int line, String element, String problem, Throwable cause) {
        this(sourceName, line, 0, element, problem, cause);
    }

    public String sourceName() { return sourceName; }
    public int line() { return line; }
    /** 0 when not known. */
    public int column() { return column; }
    /** The element's name, escaped. */
    public String element() { return element; }
    /** The problem, escaped. */
    public String problem() { return problem; }
}
