package org.rtdroid.bridge;

import java.nio.ByteBuffer;

import static org.rtdroid.bridge.RegionDescriptor.Counter;

/**
 * The private copies of the counters of one line this peer owns (a ring header or a consumer
 * line), by counter id ({@link Counter}): the truth of those fields (region-spec.md, "A peer's
 * own fields"). Loading, reading and healing go through the descriptor's counter table, so a
 * counter added to bridge/layout/region-layout.toml is carried here with no change; only the
 * code that counts it names it. Every method after construction is allocation-free.
 */
final class OwnedLine {
    private final ByteBuffer view;
    private final int line;
    private final int first;
    private final int end;
    private final long[] own = new long[Counter.COUNT];

    /** Takes the private copies from the region: the previous incarnation's values carry on. */
    OwnedLine(ByteBuffer view, int line, int first, int end) {
        this.view = view;
        this.line = line;
        this.first = first;
        this.end = end;
        for (int id = first; id < end; id++) {
            own[id] = read(view, line, id);
        }
    }

    /** Counter {@code id} of the line at {@code line} as the region shows it (load-acquire), unsigned. */
    static long read(ByteBuffer b, int line, int id) {
        int at = line + Counter.offset(id);
        return Counter.width(id) == 8 ? Shm.getAcquireU64(b, at) : Integer.toUnsignedLong(Shm.getAcquireU32(b, at));
    }

    /** The private copy of counter {@code id}, unsigned. */
    long get(int id) {
        if (id < first || id >= end) {
            throw new IllegalArgumentException("counter " + id + " is not one of this line (" + first + ".."
                    + (end - 1) + ")");
        }
        return own[id];
    }

    /** Sets the private copy only: the next {@link #heal} publishes it. */
    void setPrivate(int id, long value) {
        own[id] = value;
    }

    /** One more of u64 counter {@code id}, stored with opaque semantics (a statistic). */
    void increment(int id) {
        Shm.setOpaqueU64(view, line + Counter.offset(id), ++own[id]);
    }

    /** {@code n} more of u64 counter {@code id}, stored with opaque semantics. */
    void add(int id, long n) {
        own[id] += n;
        Shm.setOpaqueU64(view, line + Counter.offset(id), own[id]);
    }

    /** Sets u64 field {@code id} (an index the other side reads) and stores it with release semantics. */
    void publish(int id, long value) {
        own[id] = value;
        Shm.setReleaseU64(view, line + Counter.offset(id), value);
    }

    /**
     * Writes back every field of the line whose shared copy another cell changed; returns how
     * many it wrote.
     */
    int heal() {
        int n = 0;
        for (int id = first; id < end; id++) {
            int at = line + Counter.offset(id);
            n += Counter.width(id) == 8 ? Shm.republishU64(view, at, own[id])
                    : Shm.republishU32(view, at, (int) own[id]);
        }
        return n;
    }
}
