package org.rtdroid.bridge.rtproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.rtdroid.bridge.Region;
import org.rtdroid.bridge.RegionDescriptor.Counter;
import org.rtdroid.bridge.RingCounters;
import org.rtdroid.runtime.boot.ServiceStatus;

/**
 * The Android side writes far faster than the RT side drains, and never reads the replies. The
 * promise under test: drops are bounded and every frame is accounted for, and a real-time periodic
 * task (10 ms period) in the same runtime misses no deadline the flood could have caused. Not a
 * latency test: the period is generous and only misses are counted, and a miss is excused only as
 * far as a {@link StallWitness} above the task saw the machine or the JVM stall every thread (this
 * is a shared machine; a proxy that blocked the task itself would show no such stall). The Robot
 * fault suite floods the real board with a native witness.
 */
class FloodTest {
    static final long FLOOD_NANOS = 1_500_000_000L;
    static final long TICK_PERIOD_NANOS = 10_000_000L;

    @Test
    void floodFromTheAndroidSideIsDroppedBoundedAndCountedWhileDeadlinesHold() throws Exception {
        try (TestCell cell = new TestCell(64, 4, true)) {
            cell.deploy(TestCell.TICK_MANIFEST);
            cell.proxy.start(null);
            // Pre-encode one frame per sender priority so the flooder itself allocates nothing: garbage
            // from the test would bring GC pauses that are not the proxy's doing.
            byte[][] frames = new byte[100][];
            int[] lengths = new int[100];
            byte[] payload = new byte[200];
            for (int p = 0; p < 100; p++) {
                cell.frame.clear().seq(p + 1).sendTimeNanos(System.nanoTime());
                cell.frame.selectIntent().action("org.rtdroid.echo.PING").channel("echo").sender(TestCell.CLIENT)
                        .senderPriority(p).correlationId(p + 1).payload().set(payload, 0, payload.length);
                frames[p] = new byte[496];
                lengths[p] = org.rtdroid.bridge.codec.FrameCodec.encode(cell.frame, frames[p], 0);
            }
            Thread.sleep(300); // the task's first releases (class loading, JIT) are not what is measured
            ProxyStats s;
            ServiceStatus tick;
            long sent = 0;
            long refusedByRing = 0;
            long missesBefore;
            long releasesBefore;
            StallWitness witness = StallWitness.start(TICK_PERIOD_NANOS / 2, 90);
            try (witness) {
                Thread.sleep(20); // the witness is up and awake before the window opens
                missesBefore = cell.status("/tick").deadlineMisses();
                releasesBefore = cell.status("/tick").releases();
                long end = System.nanoTime() + FLOOD_NANOS;
                while (System.nanoTime() < end) {
                    int p = (int) (sent % 100);
                    if (cell.sendRaw(Region.dataRingFor(p, 3), frames[p], lengths[p])) {
                        sent++;
                    } else {
                        refusedByRing++;
                        Thread.onSpinWait();
                    }
                }
                // let the proxy drain what is left in the rings
                long drainEnd = System.nanoTime() + 5_000_000_000L;
                while ((cell.rt.consumer(1).available() > 0 || cell.rt.consumer(2).available() > 0)
                        && System.nanoTime() < drainEnd) {
                    Thread.sleep(5);
                }
                Thread.sleep(100);

                s = cell.proxy.stats();
                tick = cell.status("/tick");
                System.out.println("flood: sent " + sent + ", refused by full ring " + refusedByRing + ", proxy " + s
                        + ", tick " + tick + "; " + witness);
            }

            // the RT periodic task was not disturbed
            assertTrue(tick.releases() - releasesBefore >= 100, "tick released " + (tick.releases() - releasesBefore)
                    + " times during the ~1.6 s flood");
            long misses = tick.deadlineMisses() - missesBefore;
            long explained = witness.missesExplained(TICK_PERIOD_NANOS);
            assertTrue(misses <= explained, "deadline misses of the 10 ms task during the flood: " + misses
                    + ", of which the witnessed stalls explain at most " + explained + " (" + witness + ")");

            // every frame the Android side placed was taken and either delivered or dropped with a reason
            long in = s.get(ProxyStats.FRAMES_IN);
            assertEquals(sent, in, "frames placed on the rings = frames the proxy took");
            assertEquals(in, s.get(ProxyStats.DELIVERED) + s.inboundDropped(), "delivered + dropped = taken");
            assertEquals(s.inboundDropped(), cell.undeliverable(), "proxy drops = region's frames_undeliverable");
            assertTrue(refusedByRing + s.get(ProxyStats.RECEIVER_FULL) > 0, "the flood really overflowed something");
            // the Android side's full-ring refusals are counted by its producer rings
            long droppedFull = 0;
            for (int r = 1; r < 3; r++) {
                RingCounters c = cell.rt.counters(Region.ANDROID_PEER, r);
                droppedFull += c.get(Counter.FRAMES_DROPPED_FULL);
            }
            assertEquals(refusedByRing, droppedFull);
            // replies nobody reads: at most one ring's worth per data ring is written, the rest is dropped and counted
            assertTrue(s.get(ProxyStats.FRAMES_OUT) <= 2 * 64, "frames out " + s.get(ProxyStats.FRAMES_OUT));
            assertTrue(s.get(ProxyStats.RING_FULL) > 0, "replies dropped on a full outbound ring are counted");
        }
    }
}
