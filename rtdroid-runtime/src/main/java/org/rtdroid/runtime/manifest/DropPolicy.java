package org.rtdroid.runtime.manifest;

/** What a full channel does with one more message ({@code <drop>}). */
public enum DropPolicy {
    /**
     * {@code priority&oldest}: a sender of higher priority than the lowest-priority queued message
     * steals that message's slot (the oldest among equals); its sender is told by an exception.
     * A sender of no higher priority is refused.
     */
    PRIORITY_OLDEST("priority&oldest"),
    /** {@code oldest}: the oldest queued message is reclaimed, whoever sent it. */
    OLDEST("oldest"),
    /** {@code newest}: the new message is refused. */
    NEWEST("newest");

    private final String manifestName;

    DropPolicy(String manifestName) { this.manifestName = manifestName; }

    public String manifestName() { return manifestName; }

    static DropPolicy parse(String s) {
        return switch (s.trim()) {
            case "priority&oldest", "priority-oldest" -> PRIORITY_OLDEST;
            case "oldest" -> OLDEST;
            case "newest" -> NEWEST;
            default -> null;
        };
    }
}
