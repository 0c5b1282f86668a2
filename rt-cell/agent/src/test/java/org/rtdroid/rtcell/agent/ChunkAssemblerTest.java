package org.rtdroid.rtcell.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.rtdroid.rtcell.agent.ChunkAssembler.Outcome;

class ChunkAssemblerTest {
    static final byte[] WHOLE = new byte[1000];
    static final int CRC;

    static {
        new Random(7).nextBytes(WHOLE);
        CRC32 c = new CRC32();
        c.update(WHOLE);
        CRC = (int) c.getValue();
    }

    /** Chunks of 384, 384, 232 bytes. */
    static Outcome send(ChunkAssembler a, int index) {
        int off = index * 384;
        return a.accept("echo", index, 3, WHOLE.length, CRC, WHOLE, off, Math.min(384, WHOLE.length - off));
    }

    /** The chunk was refused, and the refusal says {@code says}. */
    private static void assertRefused(ChunkAssembler a, Outcome outcome, String says) {
        assertEquals(Outcome.REFUSED, outcome);
        assertTrue(a.refusal().contains(says), a.refusal());
    }

    @Test
    void reassemblesInOrder() {
        ChunkAssembler a = new ChunkAssembler();
        assertEquals(Outcome.IN_PROGRESS, send(a, 0));
        assertEquals(Outcome.IN_PROGRESS, send(a, 1));
        assertEquals(Outcome.COMPLETE, send(a, 2));
        assertArrayEquals(WHOLE, a.takeCompleted());
    }

    @Test
    void outOfOrderIsRefusedOnceThenSwallowed() {
        ChunkAssembler a = new ChunkAssembler();
        send(a, 0);
        assertRefused(a, send(a, 2), "out of order, expected 1");
        assertEquals(Outcome.SWALLOWED, send(a, 1));
        // a fresh chunk 0 starts over
        assertEquals(Outcome.IN_PROGRESS, send(a, 0));
        send(a, 1);
        assertEquals(Outcome.COMPLETE, send(a, 2));
    }

    @Test
    void missingChunkZeroIsRefused() {
        ChunkAssembler a = new ChunkAssembler();
        assertRefused(a, send(a, 1), "chunk 0 missing");
    }

    @Test
    void wrongCrcIsRefused() {
        ChunkAssembler a = new ChunkAssembler();
        a.accept("echo", 0, 1, 10, CRC, WHOLE, 0, 10);
        assertRefused(a, a.accept("echo", 0, 1, 10, CRC, WHOLE, 0, 10), "CRC-32");
    }

    @Test
    void changedTotalsAreRefused() {
        ChunkAssembler a = new ChunkAssembler();
        send(a, 0);
        assertRefused(a, a.accept("echo", 1, 3, WHOLE.length + 1, CRC, WHOLE, 384, 384), "changes the totals");
    }

    @Test
    void overSixteenMebibytesIsRefused() {
        ChunkAssembler a = new ChunkAssembler();
        assertRefused(a, a.accept("echo", 0, 50000, 16 * 1024 * 1024 + 1, 0, WHOLE, 0, 384), "total_bytes");
        assertEquals(Outcome.REFUSED, a.accept("echo", 0, 5, -1, 0, WHOLE, 0, 384));
    }

    @Test
    void shortTotalIsRefused() {
        ChunkAssembler a = new ChunkAssembler();
        assertEquals(Outcome.IN_PROGRESS, a.accept("echo", 0, 2, 1000, CRC, WHOLE, 0, 384));
        assertRefused(a, a.accept("echo", 1, 2, 1000, CRC, WHOLE, 384, 384), "last chunk");
    }

    @Test
    void overrunIsRefused() {
        ChunkAssembler a = new ChunkAssembler();
        assertRefused(a, a.accept("echo", 0, 1, 100, CRC, WHOLE, 0, 384), "overruns");
    }

    @Test
    void otherBundleMidwayIsRefused() {
        ChunkAssembler a = new ChunkAssembler();
        send(a, 0);
        assertEquals(Outcome.REFUSED, a.accept("evil", 1, 3, WHOLE.length, CRC, WHOLE, 384, 384));
    }

    @Test
    void aTraceIsReassembledAndSaysSo() {
        ChunkAssembler a = new ChunkAssembler();
        int trace = org.rtdroid.bridge.codec.Frame.DeployChunk.SENSOR_TRACE;
        assertEquals(Outcome.IN_PROGRESS, a.accept("fall.trace", trace, 0, 2, WHOLE.length, CRC, WHOLE, 0, 384));
        assertEquals(Outcome.COMPLETE, a.accept("fall.trace", trace, 1, 2, WHOLE.length, CRC, WHOLE, 384, 616));
        assertEquals(trace, a.completedContent());
        assertArrayEquals(WHOLE, a.takeCompleted());
        send(a, 0);
        send(a, 1);
        assertEquals(Outcome.COMPLETE, send(a, 2));
        assertEquals(org.rtdroid.bridge.codec.Frame.DeployChunk.BUNDLE, a.completedContent(), "a bundle's chunks say nothing");
    }

    @Test
    void aTraceOverItsBoundOrAContentChangeIsRefused() {
        ChunkAssembler a = new ChunkAssembler();
        int trace = org.rtdroid.bridge.codec.Frame.DeployChunk.SENSOR_TRACE;
        assertEquals(Outcome.REFUSED, a.accept("big.trace", trace, 0, 3000, ChunkAssembler.MAX_TRACE_BYTES + 1, CRC, WHOLE, 0, 384));
        assertEquals("total_bytes=1048577 outside 1..1048576", a.refusal());
        assertEquals(Outcome.IN_PROGRESS, a.accept("fall.trace", trace, 0, 3, WHOLE.length, CRC, WHOLE, 0, 384));
        assertEquals(Outcome.REFUSED, a.accept("fall.trace", 0, 1, 3, WHOLE.length, CRC, WHOLE, 384, 384));
        assertEquals("chunk 1 changes the content announced by chunk 0", a.refusal());
        assertEquals(Outcome.REFUSED, a.accept("x", 7, 0, 1, 10, CRC, WHOLE, 0, 10));
        assertEquals("chunk 0 says content=7; must be BUNDLE (0) or SENSOR_TRACE (1)", a.refusal());
    }
}
