package org.rtdroid.bench;

/**
 * One benchmark: it runs each participant (the rtdroid implementation and its baselines, as
 * {@code impl}) over its cases and adds one row per (impl, case) to the report, plus its goals.
 */
public interface Benchmark {
    /** The name used on the command line and for build/bench/&lt;name&gt;.json. */
    String name();

    /** One line saying what is measured. */
    String description();

    void run(BenchOptions options, Report report) throws Exception;
}
