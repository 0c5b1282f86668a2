package org.rtdroid.rtcell.agent.client;

import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;
import org.rtdroid.bridge.Backoff;
import org.rtdroid.bridge.ConsumerRing;
import org.rtdroid.bridge.ProducerRing;
import org.rtdroid.bridge.Region;
import org.rtdroid.bridge.codec.Frame;
import org.rtdroid.bridge.codec.FrameCodec;
import org.rtdroid.xcc.XccBounds;

/**
 * The root cell's side of the management exchange (protocols.md), in Java, for the agent's tests
 * (users talk to the agent through the {@code rtdroid} CLI, bridge/python/xcc/mgmt.py). The region
 * must be attached with {@link Region#attachManagement(org.rtdroid.bridge.RegionMemory, int)} as
 * peer 1; the caller holds the region's {@code .lock} for the whole exchange.
 */
public final class ManagementClient {
    /** DeployChunk.data bound. */
    public static final int CHUNK_BYTES = XccBounds.MAX_DEPLOY_CHUNK_DATA_BYTES;

    private final ProducerRing requests;
    private final ConsumerRing answers;
    private final byte[] tx;
    private final byte[] rx;
    private final Frame frame = new Frame();
    private long seq;

    public ManagementClient(Region region) {
        this.requests = region.producer(Region.MANAGEMENT_RING);
        this.answers = region.consumer(Region.MANAGEMENT_RING);
        this.tx = new byte[region.layout().maxFrameBytes()];
        this.rx = new byte[region.layout().maxFrameBytes()];
    }

    /** Sends a bundle as DeployChunks and waits for the DEPLOY_RESULT. */
    public Frame.Control deploy(String bundleName, byte[] bundle, long timeoutNanos) {
        return transfer(bundleName, bundle, Frame.DeployChunk.BUNDLE, timeoutNanos);
    }

    /** Sends a motion trace as DeployChunks of content SENSOR_TRACE and waits for the answer (ACK or ERROR). */
    public Frame.Control replay(String traceName, byte[] trace, long timeoutNanos) {
        return transfer(traceName, trace, Frame.DeployChunk.SENSOR_TRACE, timeoutNanos);
    }

    private Frame.Control transfer(String bundleName, byte[] bundle, int content, long timeoutNanos) {
        CRC32 crc = new CRC32();
        crc.update(bundle);
        int count = Math.max(1, (bundle.length + CHUNK_BYTES - 1) / CHUNK_BYTES);
        long deadline = System.nanoTime() + timeoutNanos;
        for (int i = 0; i < count; i++) {
            int off = i * CHUNK_BYTES;
            int len = Math.min(CHUNK_BYTES, bundle.length - off);
            frame.clear();
            Frame.DeployChunk c = frame.selectDeployChunk();
            c.bundle(bundleName).index(i).count(count).totalBytes(bundle.length).bundleCrc32((int) crc.getValue())
                    .content(content);
            c.data().set(bundle, off, len);
            send(deadline);
        }
        return awaitControl(deadline);
    }

    /** Sends one raw chunk (tests of the chunk rules). */
    public void sendChunk(String bundleName, int index, int count, int totalBytes, int crc32, byte[] data, int off,
            int len, long timeoutNanos) {
        frame.clear();
        Frame.DeployChunk c = frame.selectDeployChunk();
        c.bundle(bundleName).index(index).count(count).totalBytes(totalBytes).bundleCrc32(crc32);
        c.data().set(data, off, len);
        send(System.nanoTime() + timeoutNanos);
    }

    /** Sends raw bytes as one frame (tests of hostile input). */
    public void sendRaw(byte[] bytes, int len, long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        Backoff b = new Backoff(100, 10, 10_000, 1_000_000);
        while (!requests.offer(bytes, 0, len)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("management ring full: the agent is not draining it");
            }
            b.idle();
        }
    }

    /** One control request, one control answer (HELLO, UNDEPLOY, STATS_REQUEST). */
    public Frame.Control request(int kind, String subject, long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        frame.clear();
        frame.selectControl().kind(kind).subject(subject);
        send(deadline);
        return awaitControl(deadline);
    }

    /** LIST_SERVICES: every SERVICE_INFO answer ({@code count = 0}: a single empty one). */
    public List<Frame.Control> listServices(long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        frame.clear();
        frame.selectControl().kind(Frame.Control.LIST_SERVICES);
        send(deadline);
        List<Frame.Control> out = new ArrayList<>();
        while (true) {
            Frame.Control c = awaitControl(deadline);
            out.add(c);
            if (c.kind() != Frame.Control.SERVICE_INFO || c.service().index() + 1 >= c.service().count()) {
                return out;
            }
        }
    }

    /** TIMELINE_REQUEST: the entries of the past timelines that ended in the last {@code seconds} (0: all). */
    public List<Frame.Control> timelines(int seconds, long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        frame.clear();
        frame.selectControl().kind(Frame.Control.TIMELINE_REQUEST).code(seconds);
        send(deadline);
        List<Frame.Control> out = new ArrayList<>();
        while (true) {
            Frame.Control c = awaitControl(deadline);
            out.add(c);
            if (c.kind() != Frame.Control.TIMELINE || c.timeline().index() + 1 >= c.timeline().count()) {
                return out;
            }
        }
    }

    /** PROBE_RUN: the probe's output (PROBE_OUTPUT chunks, reassembled) into {@code output}, then its ACK or ERROR. */
    public Frame.Control probe(String kind, String args, java.io.ByteArrayOutputStream output, long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        frame.clear();
        frame.selectControl().kind(Frame.Control.PROBE_RUN).subject(kind).text(args);
        send(deadline);
        Backoff b = new Backoff(100, 10, 10_000, 1_000_000);
        while (true) {
            int len = answers.poll(rx);
            if (len > 0) {
                Frame f = new Frame();
                if (FrameCodec.decode(rx, 0, len, f) != FrameCodec.OK) {
                    continue;
                }
                if (f.bodyKind() == Frame.BODY_CONTROL) {
                    return f.control();
                }
                if (f.bodyKind() == Frame.BODY_DEPLOY_CHUNK && f.deployChunk().content() == Frame.DeployChunk.PROBE_OUTPUT) {
                    output.write(f.deployChunk().data().array(), 0, f.deployChunk().data().length());
                }
                continue;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no answer from the RT cell agent before the timeout");
            }
            b.idle();
        }
    }

    /** Waits for the next Control answer (other frames on ring 0 are skipped). */
    public Frame.Control awaitControl(long deadline) {
        Backoff b = new Backoff(100, 10, 10_000, 1_000_000);
        while (true) {
            int len = answers.poll(rx);
            if (len > 0) {
                Frame f = new Frame();
                if (FrameCodec.decode(rx, 0, len, f) == FrameCodec.OK && f.bodyKind() == Frame.BODY_CONTROL) {
                    return f.control();
                }
                continue;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no answer from the RT cell agent before the timeout");
            }
            b.idle();
        }
    }

    private void send(long deadline) {
        frame.seq(++seq).sendTimeNanos(System.nanoTime());
        int len = FrameCodec.encode(frame, tx, 0);
        if (len <= 0) {
            throw new IllegalArgumentException("frame does not encode: " + FrameCodec.describe(len));
        }
        Backoff b = new Backoff(100, 10, 10_000, 1_000_000);
        while (!requests.offer(tx, 0, len)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("management ring full until the timeout: is the RT cell agent running?");
            }
            b.idle();
        }
    }
}
