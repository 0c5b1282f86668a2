package org.rtdroid.rtcell.agent;

import java.util.zip.CRC32;
import org.rtdroid.bridge.codec.Frame;

/**
 * Reassembles a deploy bundle (or a motion trace) from numbered {@code DeployChunk} frames
 * (protocols.md): chunks come in order 0..count-1, all with the same bundle name, content, count,
 * total_bytes and bundle_crc32; the whole is at most 16 MiB (a trace 1 MiB) and its CRC-32 must match. Every deviation ends the exchange with one
 * BAD_CHUNK answer; the rest of a refused sequence is swallowed silently (one request, one answer)
 * until a new chunk 0 starts a fresh exchange.
 */
public final class ChunkAssembler {
    public static final int MAX_BUNDLE_BYTES = 16 * 1024 * 1024;
    /** The bound of a motion trace (protocols.md, "Sensor traces"). */
    public static final int MAX_TRACE_BYTES = 1024 * 1024;

    /** What {@link #accept} did with a chunk. */
    public enum Outcome { IN_PROGRESS, COMPLETE, REFUSED, SWALLOWED }

    private String bundle;          // the exchange in progress, null when idle
    private int content;            // DeployChunk.content of the exchange (BUNDLE or SENSOR_TRACE)
    private int completedContent;
    private int count;
    private int totalBytes;
    private int crc32;
    private int nextIndex;
    private byte[] data;
    private int filled;
    private String discarding;      // a refused bundle whose remaining chunks are swallowed
    private String refusal;
    private byte[] completed;

    /**
     * @param data the chunk's bytes {@code [off, off+len)}
     * @return the outcome; after REFUSED read {@link #refusal()}, after COMPLETE {@link #takeCompleted()}
     */
    public Outcome accept(String name, int index, int chunkCount, int total, int crc, byte[] src, int off, int len) {
        return accept(name, Frame.DeployChunk.BUNDLE, index, chunkCount, total, crc, src, off, len);
    }

    /** As above, for a transfer of {@code chunkContent} ({@code DeployChunk.content}). */
    public Outcome accept(String name, int chunkContent, int index, int chunkCount, int total, int crc, byte[] src,
            int off, int len) {
        refusal = null;
        if (index == 0) {
            reset();
            discarding = null;
            if (name.isEmpty()) {
                return refuse(name, "chunk 0 has no bundle name");
            }
            if (chunkCount < 1) {
                return refuse(name, "chunk 0 says count=" + Integer.toUnsignedString(chunkCount) + "; must be >= 1");
            }
            if (chunkContent != Frame.DeployChunk.BUNDLE && chunkContent != Frame.DeployChunk.SENSOR_TRACE) {
                return refuse(name, "chunk 0 says content=" + chunkContent + "; must be BUNDLE (0) or SENSOR_TRACE (1)");
            }
            int max = chunkContent == Frame.DeployChunk.SENSOR_TRACE ? MAX_TRACE_BYTES : MAX_BUNDLE_BYTES;
            if (total < 1 || total > max) {
                return refuse(name, "total_bytes=" + Integer.toUnsignedString(total) + " outside 1.." + max);
            }
            if (Integer.toUnsignedLong(chunkCount) > Integer.toUnsignedLong(total)) {
                return refuse(name, "count=" + chunkCount + " exceeds total_bytes=" + total);
            }
            bundle = name;
            content = chunkContent;
            count = chunkCount;
            totalBytes = total;
            crc32 = crc;
            nextIndex = 0;
            data = new byte[total];
            filled = 0;
        } else if (bundle == null) {
            if (name.equals(discarding)) {
                return Outcome.SWALLOWED;
            }
            return refuse(name, "chunk " + Integer.toUnsignedString(index) + " of '" + Bundle.clip(name)
                    + "' arrived with no exchange in progress (chunk 0 missing)");
        }
        if (!name.equals(bundle)) {
            return refuse(name, "chunk " + index + " names bundle '" + Bundle.clip(name) + "' during the exchange of '" + bundle + "'");
        }
        if (index != nextIndex) {
            return refuse(name, "chunk " + Integer.toUnsignedString(index) + " out of order, expected " + nextIndex);
        }
        if (chunkCount != count || total != totalBytes || crc != crc32) {
            return refuse(name, "chunk " + index + " changes the totals (count/total_bytes/bundle_crc32) announced by chunk 0");
        }
        if (chunkContent != content) {
            return refuse(name, "chunk " + index + " changes the content announced by chunk 0");
        }
        if (len < 1) {
            return refuse(name, "chunk " + index + " carries no data");
        }
        if (len > totalBytes - filled) {
            return refuse(name, "chunk " + index + " overruns total_bytes=" + totalBytes);
        }
        System.arraycopy(src, off, data, filled, len);
        filled += len;
        nextIndex++;
        if (nextIndex < count) {
            return Outcome.IN_PROGRESS;
        }
        if (filled != totalBytes) {
            return refuse(name, "last chunk received: " + filled + " bytes, total_bytes says " + totalBytes);
        }
        CRC32 c = new CRC32();
        c.update(data, 0, filled);
        if ((int) c.getValue() != crc32) {
            return refuse(name, "bundle CRC-32 0x" + Long.toHexString(c.getValue()) + " does not match bundle_crc32 0x"
                    + Integer.toHexString(crc32));
        }
        completed = data;
        completedContent = content;
        reset();
        return Outcome.COMPLETE;
    }

    /** The reason of the last REFUSED outcome. */
    public String refusal() {
        return refusal;
    }

    /** The bundle name of the exchange the last outcome belongs to. */
    public byte[] takeCompleted() {
        byte[] c = completed;
        completed = null;
        return c;
    }

    /** The {@code DeployChunk.content} of what {@link #takeCompleted()} returns. */
    public int completedContent() {
        return completedContent;
    }

    /** True while a bundle is partly received. */
    public boolean inProgress() {
        return bundle != null;
    }

    private Outcome refuse(String name, String reason) {
        reset();
        discarding = name;
        refusal = reason;
        return Outcome.REFUSED;
    }

    private void reset() {
        bundle = null;
        data = null;
        filled = 0;
        nextIndex = 0;
    }
}
