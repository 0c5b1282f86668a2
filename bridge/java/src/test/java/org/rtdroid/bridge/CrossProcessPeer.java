package org.rtdroid.bridge;

import java.nio.file.Paths;

import org.rtdroid.bridge.RegionDescriptor.Counter;
import org.rtdroid.bridge.codec.Frame;

/**
 * The RT-cell side of {@link CrossProcessTest}, run in its own JVM: attaches as peer 0, answers
 * each echo PING from ring 1 with a PONG carrying the same correlation id, checks the sequence.
 * Exit 0 after {@code count} frames, 3 on a sequence error, 4 on timeout.
 */
public final class CrossProcessPeer {
    public static void main(String[] args) throws Exception {
        String path = args[0];
        long count = Long.parseLong(args[1]);
        try (RegionMemory memory = RegionMemory.mapFile(Paths.get(path))) {
            Region rt = Region.attachCell(memory, Region.RT_PEER, true);
            ConsumerRing in = rt.consumer(1);
            ProducerRing out = rt.producer(1);
            Frame request = new Frame();
            Frame reply = new Frame();
            byte[] scratch = new byte[rt.layout().maxFrameBytes()];
            byte[] encoded = new byte[rt.layout().maxFrameBytes()];
            Backoff backoff = new Backoff(1_000, 100, 10_000, 1_000_000);
            long deadline = System.nanoTime() + 60_000_000_000L;
            for (long expected = 1; expected <= count; ) {
                if (in.pollFrame(scratch, request) == 0) {
                    if (System.nanoTime() - deadline > 0) {
                        System.err.println("peer 0: timeout waiting for frame " + expected);
                        System.exit(4);
                    }
                    backoff.idle();
                    continue;
                }
                backoff.reset();
                if (request.seq() != expected || request.bodyKind() != Frame.BODY_INTENT
                        || request.intent().correlationId() != expected * 7) {
                    System.err.println("peer 0: expected frame " + expected + ", got " + request);
                    System.exit(3);
                }
                Frame.Intent pong = reply.clear().seq(expected).sendTimeNanos(System.nanoTime()).selectIntent();
                pong.action().set(request.intent().action());
                pong.channel().set(request.intent().channel());
                pong.payload().set(request.intent().payload());
                pong.correlationId(request.intent().correlationId()).rtReceiveNanos(System.nanoTime());
                int n;
                while ((n = out.offerFrame(reply, encoded)) == 0) {
                    Thread.onSpinWait(); // the test's reader drains; the policy here is wait
                }
                if (n < 0) {
                    System.err.println("peer 0: cannot encode the reply: " + n);
                    System.exit(3);
                }
                expected++;
            }
            System.out.println("peer 0: answered " + count + " frames; corrupt " + in.get(Counter.FRAMES_CORRUPT)
                    + ", undeliverable " + in.get(Counter.FRAMES_UNDELIVERABLE));
        }
    }
}
