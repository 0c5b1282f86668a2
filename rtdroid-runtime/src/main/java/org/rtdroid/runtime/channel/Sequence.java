package org.rtdroid.runtime.channel;

import java.util.concurrent.atomic.AtomicLong;

/** Arrival order shared by all channels, so "oldest first" holds across channels too. */
final class Sequence {
    private static final AtomicLong NEXT = new AtomicLong();

    private Sequence() {}

    static long next() { return NEXT.incrementAndGet(); }
}
