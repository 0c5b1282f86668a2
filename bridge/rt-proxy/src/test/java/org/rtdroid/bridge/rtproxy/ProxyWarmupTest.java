package org.rtdroid.bridge.rtproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.rtdroid.bridge.Region;
import org.rtdroid.bridge.RegionDescriptor.Counter;

/** The warm-up takes every frame it offers, and leaves the real cell's region and apps untouched. */
class ProxyWarmupTest {
    @Test
    void warmUpTakesEveryFrameAndTouchesNothingReal() throws Exception {
        try (TestCell cell = new TestCell(16, 4, false)) {
            long echoBefore = cell.host.services().stream().mapToLong(s -> s.releases()).sum();
            String line = ProxyWarmup.run(cell.host.crossContext(), 400);
            assertTrue(line.startsWith("xcc-rt-proxy: warmed up (400 passes"), line);
            // the real region's rings saw nothing, and no application received anything
            for (int r = 1; r < 3; r++) {
                assertEquals(0, cell.rt.counters(Region.ANDROID_PEER, r).get(Counter.FRAMES_ACCEPTED), "ring " + r);
            }
            assertEquals(echoBefore, cell.host.services().stream().mapToLong(s -> s.releases()).sum());
        }
    }
}
