package org.rtdroid.bridge.bench;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Set;

import org.rtdroid.bridge.ConsumerRing;
import org.rtdroid.bridge.ProducerRing;
import org.rtdroid.bridge.Region;
import org.rtdroid.bridge.RegionDescriptor.Counter;
import org.rtdroid.bridge.RegionFormatException;
import org.rtdroid.bridge.RegionMemory;
import org.rtdroid.bridge.tools.Args;
import org.rtdroid.json.JsonWriter;

/**
 * Transport benchmark peer; the C peer ({@code bridge/c}, xcc_bench_peer) implements the same
 * command line, so any pair of implementations can run against each other:
 * <pre>
 *   ping  --region PATH --peer 0|1 --cpu N --frame-bytes B --count N --warmup W --samples-out FILE
 *   echo  --region PATH --peer 0|1 --cpu N --count N
 *   send  --region PATH --peer P --cpu N --frame-bytes B --seconds S
 *   drain --region PATH --peer P --cpu N --frame-bytes B --seconds S
 * </pre>
 * Frames are ring-level opaque frames of exactly B bytes (bytes 0..7 LE sequence, 8..15 LE send
 * time), no protobuf: this measures the transport. ping and echo use data ring 1 of their own
 * section; both busy-poll. ping sends warmup + count frames one at a time and writes count LE u64
 * round-trip nanoseconds (after warm-up) to FILE, prints a JSON summary line and stores
 * STOPPING; echo returns N frames (the orchestrator passes the ping's warmup + count) and exits,
 * or exits early when the ping side stores STOPPING. drain prints one JSON line {"frames":..,"seconds":..,"fps":..}.
 * Pinning: Java 11 code has no sched_setaffinity, so the orchestrator wraps the process in
 * {@code taskset -c N}; --cpu is checked against the process's allowed CPUs (warning only).
 */
public final class BenchPeer {
    static final int BENCH_RING = 1;
    static final int MIN_FRAME_BYTES = 16;
    static final long PEER_WAIT_NANOS = 60_000_000_000L;
    static final long REPLY_TIMEOUT_NANOS = 5_000_000_000L;

    private BenchPeer() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** The command's exit status, without exiting (tests). */
    public static int runForTest(String[] args) {
        return run(args);
    }

    static int run(String[] args) {
        try {
            if (args.length < 1) {
                throw new Args.UsageException("missing command: ping, echo, send or drain");
            }
            String command = args[0];
            Args a;
            switch (command) {
                case "ping":
                    a = Args.parse(args, 1, Set.of("region", "peer", "cpu", "frame-bytes", "count", "warmup",
                            "samples-out"));
                    break;
                case "echo":
                    a = Args.parse(args, 1, Set.of("region", "peer", "cpu", "count"));
                    break;
                case "send":
                case "drain":
                    a = Args.parse(args, 1, Set.of("region", "peer", "cpu", "frame-bytes", "seconds"));
                    break;
                default:
                    throw new Args.UsageException("unknown command '" + command
                            + "': expected ping, echo, send or drain");
            }
            Path regionPath = Paths.get(a.string("region"));
            int peer = a.intNumber("peer", 0, 1);
            int cpu = a.intNumber("cpu", 0, 4095);
            checkAffinity(cpu);
            try (RegionMemory memory = RegionMemory.mapFile(regionPath)) {
                Region region = Region.attachCell(memory, peer, true);
                int maxFrame = region.layout().maxFrameBytes();
                switch (command) {
                    case "ping":
                        return ping(region, a.intNumber("frame-bytes", MIN_FRAME_BYTES, maxFrame),
                                a.intNumber("count", 1, 100_000_000), a.intNumber("warmup", 0, 100_000_000),
                                Paths.get(a.string("samples-out")));
                    case "echo":
                        return echo(region, a.number("count", 1, Long.MAX_VALUE));
                    case "send":
                        return send(region, a.intNumber("frame-bytes", MIN_FRAME_BYTES, maxFrame),
                                a.intNumber("seconds", 1, 3600));
                    default:
                        return drain(region, a.intNumber("frame-bytes", MIN_FRAME_BYTES, maxFrame),
                                a.intNumber("seconds", 1, 3600));
                }
            }
        } catch (Args.UsageException e) {
            System.err.println("BenchPeer: " + e.getMessage());
            System.err.println("usage: BenchPeer ping --region PATH --peer 0|1 --cpu N --frame-bytes B --count N"
                    + " --warmup W --samples-out FILE | echo --region PATH --peer 0|1 --cpu N --count N"
                    + " | send|drain --region PATH --peer P --cpu N --frame-bytes B --seconds S");
            return 2;
        } catch (RegionFormatException | IOException | IllegalStateException e) {
            System.err.println("BenchPeer: " + e.getMessage());
            return 1;
        }
    }

    /** Waits (busy, with a deadline) until the other peer has attached. */
    private static void awaitPeer(Region region) {
        long deadline = System.nanoTime() + PEER_WAIT_NANOS;
        while (!region.peerReady()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("peer " + region.otherPeer() + " did not become READY within "
                        + PEER_WAIT_NANOS / 1_000_000_000L + " s");
            }
            Thread.onSpinWait();
        }
    }

    static void putLongLE(byte[] b, int off, long v) {
        for (int i = 0; i < 8; i++) {
            b[off + i] = (byte) (v >>> (8 * i));
        }
    }

    static long getLongLE(byte[] b, int off) {
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = (v << 8) | (b[off + i] & 0xFFL);
        }
        return v;
    }

    static int ping(Region region, int frameBytes, int count, int warmup, Path samplesOut) throws IOException {
        ProducerRing out = region.producer(BENCH_RING);
        ConsumerRing in = region.consumer(BENCH_RING);
        byte[] frame = new byte[frameBytes];
        for (int i = 16; i < frameBytes; i++) {
            frame[i] = (byte) i;
        }
        byte[] reply = new byte[region.layout().maxFrameBytes()];
        long[] samples = new long[count];
        awaitPeer(region);
        int total = warmup + count;
        for (int i = 0; i < total; i++) {
            long seq = i + 1;
            putLongLE(frame, 0, seq);
            long t0 = System.nanoTime();
            putLongLE(frame, 8, t0);
            while (!out.offer(frame, 0, frameBytes)) {
                Thread.onSpinWait();
            }
            int n;
            int spins = 0;
            while ((n = in.poll(reply)) == 0) {
                if ((++spins & 0xFFF) == 0 && System.nanoTime() - t0 > REPLY_TIMEOUT_NANOS) {
                    System.err.println("BenchPeer ping: no echo of frame " + seq + " within "
                            + REPLY_TIMEOUT_NANOS / 1_000_000_000L + " s (is echo running with --count >= "
                            + total + "?)");
                    return 1;
                }
                Thread.onSpinWait();
            }
            long rtt = System.nanoTime() - t0;
            if (n != frameBytes || getLongLE(reply, 0) != seq) {
                System.err.println("BenchPeer ping: reply " + (i + 1) + " has " + n + " bytes and sequence "
                        + getLongLE(reply, 0) + ", expected " + frameBytes + " bytes and sequence " + seq);
                return 1;
            }
            if (i >= warmup) {
                samples[i - warmup] = rtt;
            }
        }
        try (OutputStream os = new BufferedOutputStream(Files.newOutputStream(samplesOut), 1 << 16)) {
            byte[] le = new byte[8];
            for (long s : samples) {
                putLongLE(le, 0, s);
                os.write(le);
            }
        }
        region.setState(Region.STATE_STOPPING); // lets an echo peer with a larger --count finish
        long[] sorted = samples.clone();
        java.util.Arrays.sort(sorted);
        System.out.println(new JsonWriter().beginObject().field("impl", "java")
                .field("frame_bytes", frameBytes).field("count", count)
                .field("p50_us", sorted[(int) ((count - 1) * 0.5)] / 1e3)
                .field("p99_us", sorted[(int) ((count - 1) * 0.99)] / 1e3)
                .field("p999_us", sorted[(int) ((count - 1) * 0.999)] / 1e3)
                .field("max_us", sorted[count - 1] / 1e3).endObject());
        System.err.println("BenchPeer ping: " + count + " round trips of " + frameBytes + " B after " + warmup
                + " warm-up; corrupt " + in.get(Counter.FRAMES_CORRUPT) + ", resyncs " + in.get(Counter.RESYNCS));
        return 0;
    }

    static int echo(Region region, long count) {
        ProducerRing out = region.producer(BENCH_RING);
        ConsumerRing in = region.consumer(BENCH_RING);
        byte[] frame = new byte[region.layout().maxFrameBytes()];
        int other = region.otherPeer();
        for (long i = 0; i < count; i++) {
            int n;
            int spins = 0;
            while ((n = in.poll(frame)) == 0) {
                if ((++spins & 0xFFF) == 0 && region.peerState(other) == Region.STATE_STOPPING) {
                    System.err.println("BenchPeer echo: the ping peer stopped after " + i + " frames");
                    return 0;
                }
                Thread.onSpinWait();
            }
            while (!out.offer(frame, 0, n)) {
                Thread.onSpinWait();
            }
        }
        return 0;
    }

    static int send(Region region, int frameBytes, int seconds) {
        ProducerRing out = region.producer(BENCH_RING);
        int slots = region.layout().slotsPerRing();
        byte[] frame = new byte[frameBytes];
        awaitPeer(region);
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        long seq = 0;
        long loops = 0;
        // Check the time every 256 loops (full or not): nanoTime costs about as much as a frame.
        while (true) {
            if ((++loops & 0xFF) == 0 && System.nanoTime() - end > 0) {
                break;
            }
            if (out.backlog() == slots) {
                Thread.onSpinWait();
                continue;
            }
            seq++;
            putLongLE(frame, 0, seq);
            out.offer(frame, 0, frameBytes);
        }
        return 0;
    }

    static int drain(Region region, int frameBytes, int seconds) {
        ConsumerRing in = region.consumer(BENCH_RING);
        byte[] frame = new byte[region.layout().maxFrameBytes()];
        long waitUntil = System.nanoTime() + PEER_WAIT_NANOS;
        int n;
        while ((n = in.poll(frame)) == 0) {
            if (System.nanoTime() - waitUntil > 0) {
                System.err.println("BenchPeer drain: no frame within " + PEER_WAIT_NANOS / 1_000_000_000L + " s");
                return 1;
            }
            Thread.onSpinWait();
        }
        long start = System.nanoTime();
        long end = start + seconds * 1_000_000_000L;
        long frames = 1;
        long expected = getLongLE(frame, 0) + 1;
        long bad = n == frameBytes ? 0 : 1;
        long now = start;
        while (true) {
            n = in.poll(frame);
            if (n > 0) {
                frames++;
                long seq = getLongLE(frame, 0);
                if (n != frameBytes || seq != expected) {
                    bad++;
                }
                expected = seq + 1;
                if ((frames & 0xFF) == 0 && (now = System.nanoTime()) - end > 0) {
                    break;
                }
            } else {
                now = System.nanoTime();
                if (now - end > 0) {
                    break;
                }
                Thread.onSpinWait();
            }
        }
        double elapsed = (now - start) / 1e9;
        System.out.println(new JsonWriter().beginObject().field("frames", frames).field("seconds", elapsed)
                .field("fps", Math.round(frames / elapsed)).field("frame_bytes", frameBytes)
                .field("out_of_sequence", bad).field("corrupt", in.get(Counter.FRAMES_CORRUPT))
                .field("resyncs", in.get(Counter.RESYNCS)).endObject());
        return bad == 0 ? 0 : 1;
    }

    /** Warns when the process may run on CPUs other than {@code cpu} (the orchestrator uses taskset). */
    private static void checkAffinity(int cpu) {
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
                if (line.startsWith("Cpus_allowed_list:")) {
                    String allowed = line.substring(line.indexOf(':') + 1).trim();
                    if (!allowed.equals(Integer.toString(cpu))) {
                        System.err.println("BenchPeer: warning: --cpu " + cpu + " but the process may run on CPUs "
                                + allowed + " (wrap it in taskset -c " + cpu + ")");
                    }
                }
            }
        } catch (IOException e) {
            System.err.println("BenchPeer: warning: cannot read /proc/self/status to check --cpu: " + e.getMessage());
        }
    }
}
