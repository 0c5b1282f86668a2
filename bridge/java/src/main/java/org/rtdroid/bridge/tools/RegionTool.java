package org.rtdroid.bridge.tools;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Set;

import org.rtdroid.bridge.Region;
import org.rtdroid.bridge.RegionFormatException;
import org.rtdroid.bridge.RegionLayout;
import org.rtdroid.bridge.RegionMemory;
import org.rtdroid.bridge.RingCounters;

/**
 * Region tooling for boards, benchmarks and debugging:
 * <pre>
 *   format --path P --rings R --slots S --slot-bytes B   create/size the file and format it
 *   dump --path P                                         header, states, epochs, every counter as JSON
 * </pre>
 */
public final class RegionTool {
    private RegionTool() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String[] args) {
        try {
            if (args.length < 1) {
                throw new Args.UsageException("missing command: format or dump");
            }
            switch (args[0]) {
                case "format": {
                    Args a = Args.parse(args, 1, Set.of("path", "rings", "slots", "slot-bytes"));
                    Path path = Paths.get(a.string("path"));
                    RegionLayout layout = RegionLayout.of(
                            a.intNumber("rings", RegionLayout.MIN_RINGS, RegionLayout.MAX_RINGS),
                            a.intNumber("slots", RegionLayout.MIN_SLOTS, RegionLayout.MAX_SLOTS),
                            a.intNumber("slot-bytes", RegionLayout.MIN_SLOT_BYTES, RegionLayout.MAX_SLOT_BYTES));
                    format(path, layout);
                    System.out.println("{\"formatted\":\"" + json(path.toString()) + "\",\"rings_per_peer\":"
                            + layout.rings() + ",\"slots_per_ring\":" + layout.slotsPerRing() + ",\"slot_bytes\":"
                            + layout.slotBytes() + ",\"region_bytes\":" + layout.regionBytes() + "}");
                    return 0;
                }
                case "dump": {
                    Args a = Args.parse(args, 1, Set.of("path"));
                    try (RegionMemory memory = RegionMemory.mapFile(Paths.get(a.string("path")))) {
                        System.out.println(dump(memory));
                    }
                    return 0;
                }
                default:
                    throw new Args.UsageException("unknown command '" + args[0] + "': expected format or dump");
            }
        } catch (Args.UsageException e) {
            System.err.println("RegionTool: " + e.getMessage());
            System.err.println("usage: RegionTool format --path P --rings R --slots S --slot-bytes B | dump --path P");
            return 2;
        } catch (RegionFormatException | IOException e) {
            System.err.println("RegionTool: " + e.getMessage());
            return 1;
        }
    }

    /** Creates the file if needed, sizes it to at least the region, formats it. */
    public static void format(Path path, RegionLayout layout) throws IOException {
        try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw")) {
            if (file.length() < layout.regionBytes()) {
                file.setLength(layout.regionBytes());
            }
        }
        try (RegionMemory memory = RegionMemory.mapFile(path)) {
            Region.format(memory, layout);
        }
    }

    /** The region as one JSON object. Validates the header first (throws naming the field). */
    public static String dump(RegionMemory memory) {
        Region region = Region.observe(memory);
        RegionLayout layout = region.layout();
        ByteBuffer b = memory.buffer();
        StringBuilder sb = new StringBuilder(4096);
        sb.append("{\"region\":\"").append(json(memory.description())).append("\",\"mapped_bytes\":")
                .append(memory.sizeBytes()).append(",\"header\":{")
                .append("\"magic\":").append(u32(b, RegionLayout.MAGIC_OFFSET))
                .append(",\"layout_version\":").append(b.getShort(RegionLayout.LAYOUT_VERSION_OFFSET) & 0xFFFF)
                .append(",\"header_bytes\":").append(b.getShort(RegionLayout.HEADER_BYTES_OFFSET) & 0xFFFF)
                .append(",\"region_bytes\":").append(u32(b, RegionLayout.REGION_BYTES_OFFSET))
                .append(",\"peer_count\":").append(u32(b, RegionLayout.PEER_COUNT_OFFSET))
                .append(",\"rings_per_peer\":").append(layout.rings())
                .append(",\"slots_per_ring\":").append(layout.slotsPerRing())
                .append(",\"slot_bytes\":").append(layout.slotBytes())
                .append(",\"state_table_offset\":").append(u32(b, RegionLayout.STATE_TABLE_OFFSET_OFFSET))
                .append(",\"section_offset\":[").append(layout.sectionOffset(0)).append(',')
                .append(layout.sectionOffset(1)).append(']')
                .append(",\"section_bytes\":").append(layout.sectionBytes())
                .append(",\"header_crc32\":").append(u32(b, RegionLayout.HEADER_CRC_OFFSET))
                .append("},\"peers\":[");
        for (int peer = 0; peer < RegionLayout.PEER_COUNT; peer++) {
            int state = region.peerState(peer);
            sb.append(peer == 0 ? "" : ",").append("{\"peer\":").append(peer)
                    .append(",\"state\":").append(Integer.toUnsignedString(state))
                    .append(",\"state_name\":\"").append(Region.stateName(state))
                    .append("\",\"epoch\":").append(region.peerEpoch(peer))
                    .append(",\"heartbeat\":").append(Long.toUnsignedString(region.peerHeartbeat(peer)))
                    .append('}');
        }
        sb.append("],\"rings\":[");
        boolean first = true;
        for (int peer = 0; peer < RegionLayout.PEER_COUNT; peer++) {
            for (int ring = 0; ring < layout.rings(); ring++) {
                RingCounters c = region.counters(peer, ring);
                sb.append(first ? "" : ",").append(c.toJson());
                first = false;
            }
        }
        return sb.append("]}").toString();
    }


    private static long u32(ByteBuffer b, int offset) {
        return Integer.toUnsignedLong(b.getInt(offset));
    }

    static String json(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
