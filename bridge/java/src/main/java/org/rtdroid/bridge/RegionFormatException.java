package org.rtdroid.bridge;

/**
 * The region header (or a requested geometry) breaks a rule of region-spec.md. The message names
 * the field, its value and the rule, so an operator can tell which side formatted it wrongly.
 */
public final class RegionFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String field;

    public RegionFormatException(String field, long value, String rule) {
        super("region " + field + " = " + value + " (0x" + Long.toHexString(value) + "): must be " + rule);
        this.field = field;
    }

    /** The header field (or geometry parameter) that broke its rule. */
    public String field() {
        return field;
    }
}
