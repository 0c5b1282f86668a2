package org.rtdroid.runtime.validation;

import java.util.List;

/**
 * A channel as the overflow analysis sees it: its capacity and drop policy, who puts messages in
 * (tasks with a count per release, or the Android cell at a minimum inter-arrival time) and who
 * takes them out. {@code inboundMinInterArrivalNanos} is the Android cell's minimum inter-arrival
 * time on an inbound cross-context channel, 0 when undeclared (best effort), -1 for other channels.
 */
public record ChannelModel(String app, String name, String type, int capacity, String drop, long dataSizeBytes,
                           List<End> producers, List<End> consumers, long inboundMinInterArrivalNanos,
                           boolean toAndroid, String source) {

    /** A task ({@link Task#key()}) at one end of the channel and the messages it sends or takes per release. */
    public record End(String task, int countPerRelease) {}

    public boolean fromAndroid() { return inboundMinInterArrivalNanos >= 0; }

    public long bytes() { return (long) capacity * dataSizeBytes; }
}
