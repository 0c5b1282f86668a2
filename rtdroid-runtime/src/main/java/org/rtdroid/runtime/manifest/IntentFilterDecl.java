package org.rtdroid.runtime.manifest;

import java.util.List;

/**
 * {@code <intent-filter role count>}: the component publishes on, or subscribes to, the channels
 * named by its {@code <action name>} children, at most {@code count} messages per release.
 */
public record IntentFilterDecl(Role role, int count, List<String> channels, int line) {
    public enum Role { PUBLISHER, SUBSCRIBER }
}
