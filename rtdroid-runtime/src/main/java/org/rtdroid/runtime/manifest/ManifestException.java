package org.rtdroid.runtime.manifest;

/**
 * A manifest that does not parse or does not validate. The message always names the file, the line
 * (0 when the problem is not tied to one line), the element and the problem, as
 * {@code <file>:<line>: <element>: <problem>}.
 */
public final class ManifestException extends Exception {
    private final String sourceName;
    private final int line;
    private final String element;
    private final String problem;

    public ManifestException(String sourceName, int line, String element, String problem) {
        super(sourceName + ":" + line + ": <" + element + ">: " + problem);
        this.sourceName = sourceName;
        this.line = line;
        this.element = element;
        this.problem = problem;
    }

    public ManifestException(String sourceName, int line, String element, String problem, Throwable cause) {
        this(sourceName, line, element, problem);
        initCause(cause);
    }

    public String sourceName() { return sourceName; }
    public int line() { return line; }
    public String element() { return element; }
    public String problem() { return problem; }
}
