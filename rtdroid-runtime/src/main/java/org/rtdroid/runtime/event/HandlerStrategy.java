package org.rtdroid.runtime.event;

import java.util.Locale;

/** How handlers get threads (manifest {@code handlers="bound|pooled"}). */
public enum HandlerStrategy {
    /** One thread per handler, at the handler's priority (RTSJ's BoundAsyncEventHandler). */
    BOUND,
    /** A fixed pool of threads; a pool thread takes the priority of the handler it runs. */
    POOLED;

    public String manifestName() { return name().toLowerCase(Locale.ROOT); }

    /** @return the strategy named {@code bound} or {@code pooled}, or null */
    public static HandlerStrategy fromManifest(String s) {
        for (HandlerStrategy v : values()) {
            if (v.manifestName().equals(s)) {
                return v;
            }
        }
        return null;
    }
}
