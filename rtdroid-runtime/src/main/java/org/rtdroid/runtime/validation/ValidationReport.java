package org.rtdroid.runtime.validation;

import java.util.List;

/**
 * The outcome of {@link Validation#run}: per CPU the utilization, the quick bounds and each task's
 * response time; per channel end the worst-case queue occupancy; the memory sums; and the reasons
 * the configuration fails (empty when everything holds), each starting with its code:
 * {@code INCOMPLETE}, {@code UNSCHEDULABLE}, {@code CHANNEL_OVERFLOW}, {@code OVER_BUDGET}.
 */
public record ValidationReport(Cell cell, SystemModel model, List<Cpu> cpus, List<ChannelResult> channels,
                               Memory memory, List<String> reasons) {

    /** One CPU: Σ C/T, the Liu–Layland bound n(2^{1/n}−1), Π(U_i+1) (hyperbolic bound: ≤ 2), and
     *  whether those bounds apply (D = T, no jitter, no blocking, rate-monotonic priorities). */
    public record Cpu(int index, double utilization, double liuLaylandBound, double hyperbolicProduct,
                      boolean boundsApply, List<ResponseTimeAnalysis.Result> results) {}

    /** One consumer of a channel: worst-case occupancy (-1 unbounded), the verdict in words, holds or not. */
    public record ChannelResult(ChannelModel channel, String consumer, long worstOccupancy, String verdict, boolean holds) {}

    public record Memory(long scopeBytes, long channelBytes, long totalBytes, boolean holds) {}

    public boolean holds() { return reasons.isEmpty(); }
}
