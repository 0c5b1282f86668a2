package org.rtdroid.bridge.tools;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Set;

import org.rtdroid.bridge.Region;
import org.rtdroid.bridge.RegionFormatException;
import org.rtdroid.bridge.RegionDescriptor;
import org.rtdroid.bridge.RegionLayout;
import org.rtdroid.bridge.RegionMemory;
import org.rtdroid.json.JsonWriter;

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
                            a.intNumber("rings", RegionDescriptor.MIN_RINGS, RegionDescriptor.MAX_RINGS),
                            a.intNumber("slots", RegionDescriptor.MIN_SLOTS, RegionDescriptor.MAX_SLOTS),
                            a.intNumber("slot-bytes", RegionDescriptor.MIN_SLOT_BYTES, RegionDescriptor.MAX_SLOT_BYTES));
                    format(path, layout);
                    System.out.println(new JsonWriter().beginObject().field("formatted", path.toString())
                            .field("rings_per_peer", layout.rings()).field("slots_per_ring", layout.slotsPerRing())
                            .field("slot_bytes", layout.slotBytes()).field("region_bytes", layout.regionBytes())
                            .endObject());
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
        JsonWriter w = new JsonWriter(4096).beginObject()
                .field("region", memory.description())
                .field("mapped_bytes", memory.sizeBytes())
                .name("header").beginObject()
                .field("magic", u32(b, RegionDescriptor.MAGIC_OFFSET))
                .field("layout_version", b.getShort(RegionDescriptor.LAYOUT_VERSION_OFFSET) & 0xFFFF)
                .field("header_bytes", b.getShort(RegionDescriptor.HEADER_BYTES_OFFSET) & 0xFFFF)
                .field("region_bytes", u32(b, RegionDescriptor.REGION_BYTES_OFFSET))
                .field("peer_count", u32(b, RegionDescriptor.PEER_COUNT_OFFSET))
                .field("rings_per_peer", layout.rings())
                .field("slots_per_ring", layout.slotsPerRing())
                .field("slot_bytes", layout.slotBytes())
                .field("state_table_offset", u32(b, RegionDescriptor.STATE_TABLE_OFFSET_OFFSET))
                .name("section_offset").beginArray()
                .value(layout.sectionOffset(0)).value(layout.sectionOffset(1)).endArray()
                .field("section_bytes", layout.sectionBytes())
                .field("header_crc32", u32(b, RegionDescriptor.HEADER_CRC32_OFFSET))
                .endObject()
                .name("peers").beginArray();
        for (int peer = 0; peer < RegionDescriptor.PEER_COUNT; peer++) {
            int state = region.peerState(peer);
            w.beginObject().field("peer", peer)
                    .field("state", Integer.toUnsignedLong(state))
                    .field("state_name", Region.stateName(state))
                    .field("epoch", region.peerEpoch(peer))
                    .unsignedField("heartbeat", region.peerHeartbeat(peer))
                    .endObject();
        }
        w.endArray().name("rings").beginArray();
        for (int peer = 0; peer < RegionDescriptor.PEER_COUNT; peer++) {
            for (int ring = 0; ring < layout.rings(); ring++) {
                w.rawValue(region.counters(peer, ring).toJson());
            }
        }
        return w.endArray().endObject().toString();
    }


    private static long u32(ByteBuffer b, int offset) {
        return Integer.toUnsignedLong(b.getInt(offset));
    }
}
