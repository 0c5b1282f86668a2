package org.rtdroid.runtime.manifest;

import java.util.Locale;

/** Channel kinds of the dissertation's section 4.3, as written in {@code <channel type=...>}. */
public enum ChannelType {
    MESSAGE("rt-msg"), BROADCAST("rt-broadcast"), BULK("rt-bulk"), CROSS_CONTEXT("cross-context");

    private final String manifestName;

    ChannelType(String manifestName) { this.manifestName = manifestName; }

    public String manifestName() { return manifestName; }

    static ChannelType parse(String s) {
        return switch (s.trim().toLowerCase(Locale.ROOT)) {
            case "rt-msg", "message" -> MESSAGE;
            case "rt-broadcast", "rt-intent", "broadcast" -> BROADCAST;
            case "rt-bulk", "bulk" -> BULK;
            case "cross-context", "xcc" -> CROSS_CONTEXT;
            default -> null;
        };
    }
}
