package org.rtdroid.runtime.manifest;

import java.util.List;

/**
 * One {@code <channel>}: type, delivery order, execution priority, drop policy, fixed data size
 * and the number of pre-allocated messages ({@code capacity}). Cross-context channels also carry
 * a direction (as seen from the RT cell) and the Android senders allowed to send on them.
 */
public record ChannelDecl(String name, ChannelType type, Order order, String execution, DropPolicy drop,
                          int dataSizeBytes, String dataType, int capacity, Direction direction,
                          List<String> allowedSenders, int line) {

    /** Delivery order: by sender priority (priority inheritance) or plain FIFO. */
    public enum Order { PRIORITY_INHERITANCE, FIFO }

    /** Direction of a cross-context channel: {@code in} = Android → RT, {@code out} = RT → Android. */
    public enum Direction {
        IN, OUT, BOTH;

        public boolean inbound() { return this != OUT; }

        public boolean outbound() { return this != IN; }
    }

    /** True if an Android sender of that name may send on this (cross-context) channel. */
    public boolean allows(String sender) {
        return allowedSenders.contains("*") || allowedSenders.contains(sender);
    }
}
