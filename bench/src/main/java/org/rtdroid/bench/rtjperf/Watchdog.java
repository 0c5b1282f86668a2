package org.rtdroid.bench.rtjperf;

/**
 * Bounds each phase of a run: every wait of the benchmark is a bounded park that checks it, so a
 * phase that overruns (a handler that never runs, a CPU taken away for good) ends the run with
 * its name instead of leaving real-time threads behind. Nothing here spins.
 */
final class Watchdog {
    /** A phase ran past its bound; the run stops and says which. */
    static final class Overrun extends RuntimeException {
        Overrun(String message) {
            super(message, null, false, false);
        }
    }

    private final long boundNanos;
    private volatile String phase = "start-up";
    private volatile long deadline;

    Watchdog(long boundSeconds) {
        this.boundNanos = boundSeconds * 1_000_000_000L;
        this.deadline = System.nanoTime() + boundNanos;
    }

    void phase(String name) {
        phase = name;
        deadline = System.nanoTime() + boundNanos;
    }

    String phase() { return phase; }

    void check() {
        if (System.nanoTime() - deadline > 0) {
            throw new Overrun("phase '" + phase + "' overran its bound of " + boundNanos / 1_000_000_000L + " s");
        }
    }
}
