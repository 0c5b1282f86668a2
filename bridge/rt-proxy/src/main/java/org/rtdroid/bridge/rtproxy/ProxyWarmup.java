package org.rtdroid.bridge.rtproxy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.rtdroid.bridge.Backoff;
import org.rtdroid.bridge.ProducerRing;
import org.rtdroid.bridge.Region;
import org.rtdroid.bridge.RegionLayout;
import org.rtdroid.bridge.RegionMemory;
import org.rtdroid.bridge.codec.Frame;
import org.rtdroid.bridge.codec.FrameCodec;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.xcc.CrossContextEndpoint;

/**
 * Runs the proxy's pass on a scratch region, on the calling (SCHED_OTHER) thread, before the real
 * proxy thread starts: so the classes it needs are loaded and linked, and its code is compiled,
 * before any of it runs at SCHED_FIFO.
 *
 * <p>Why: code runs slowly the first time (class loading, the interpreter). A proxy thread running
 * cold code at SCHED_FIFO starves the JVM's own SCHED_OTHER threads on the cell's CPU, and its CPU
 * budget then puts it to sleep for four times as long. Under QEMU TCG its first pass used about
 * 1.8 s of CPU, and the first UI request after boot waited about 7 s for an answer.
 *
 * <p>The scratch region's Android side offers intents for a channel nobody declares, plus corrupt
 * frames. The real endpoint only looks the channel up, so nothing reaches any application. On the
 * QEMU board the warm-up happens before the boot snapshot is taken, so it is part of the snapshot.
 */
public final class ProxyWarmup {
    /** Enough passes for the JIT's first tier to compile the pass (it compiles after ~200 calls). */
    public static final int DEFAULT_PASSES = 3_000;

    private ProxyWarmup() {
    }

    /** @return a line for the console: how many passes, how long */
    public static String run(CrossContextEndpoint endpoint, int passes) {
        long t0 = System.nanoTime();
        try {
            RegionLayout layout = RegionLayout.of(3, 8, 512);
            RegionMemory memory = RegionMemory.wrap(ByteBuffer.allocateDirect(layout.regionBytes()));
            Region.format(memory, layout);
            Region rt = Region.attachCell(memory, Region.RT_PEER, true);
            Region android = Region.attachCell(memory, Region.ANDROID_PEER, true);
            // Heartbeat every pass and never sleep: the heartbeat and budget paths are exercised
            // too, and the warm-up takes only CPU time.
            RtProxy proxy = new RtProxy(rt, endpoint, new Backoff(1, 0, 1, 1), 1, line -> { });
            CpuBudget budget = new CpuBudget(RtProxy.BUDGET_WINDOW_NANOS, RtProxy.BUDGET_NANOS);
            budget.restart(System.nanoTime(), Linux.threadCpuNanos());
            byte[] frame = new byte[layout.maxFrameBytes()];
            int len = encodeIntent(frame);
            for (int i = 0; i < passes; i++) {
                ProducerRing ring = android.producer(1 + i % 2);
                if (i % 4 == 3) {
                    frame[0] ^= (byte) 0xFF; // not valid protobuf: the corrupt-frame path
                    ring.offer(frame, 0, len);
                    frame[0] ^= (byte) 0xFF;
                } else {
                    ring.offer(frame, 0, len);
                }
                proxy.doWork();
                budget.charge(System.nanoTime(), Linux.threadCpuNanos());
            }
            long taken = proxy.stats().get(ProxyStats.FRAMES_IN);
            if (taken != passes) {
                return "xcc-rt-proxy: warm-up took " + taken + " of " + passes + " frames";
            }
        } catch (RuntimeException e) {
            // Only a warm-up: the real proxy reports its own errors.
            return "xcc-rt-proxy: warm-up skipped: " + e;
        }
        return String.format("xcc-rt-proxy: warmed up (%d passes on a scratch region) in %.0f ms", passes,
                (System.nanoTime() - t0) / 1e6);
    }

    private static int encodeIntent(byte[] into) {
        Frame f = new Frame();
        f.clear().seq(1).sendTimeNanos(System.nanoTime());
        byte[] payload = "warm-up".getBytes(StandardCharsets.US_ASCII);
        f.selectIntent().action("org.rtdroid.warmup").channel("rtdroid.proxy-warmup").sender("org.rtdroid.warmup")
                .senderPriority(10).correlationId(1).payload().set(payload, 0, payload.length);
        int len = FrameCodec.encode(f, into, 0);
        if (len <= 0) {
            throw new IllegalStateException("warm-up frame: " + FrameCodec.describe(len));
        }
        return len;
    }
}
