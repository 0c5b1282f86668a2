package org.rtdroid.rtcell.agent;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.rtdroid.bridge.Backoff;
import org.rtdroid.bridge.ConsumerRing;
import org.rtdroid.bridge.ProducerRing;
import org.rtdroid.bridge.Region;
import org.rtdroid.bridge.codec.Frame;
import org.rtdroid.bridge.codec.FrameCodec;
import org.rtdroid.runtime.boot.FailureCause;
import org.rtdroid.runtime.boot.TimelineTrack;
import org.rtdroid.runtime.reflection.ExecutedInterval;
import org.rtdroid.runtime.reflection.PastTimeline;
import org.rtdroid.runtime.text.Printable;
import org.rtdroid.xcc.XccBounds;

/**
 * Serves the management ring (protocols.md, "Management"): requests arrive on the Android cell's
 * ring 0, answers leave on the RT cell's ring 0. One request, one answer (LIST_SERVICES: a
 * numbered sequence). Runs on an ordinary (non-real-time) thread: deploying verifies signatures
 * and loads classes, which is heap work that must never run at a real-time priority.
 *
 * <p>Everything on ring 0 is hostile input: a frame that does not decode, a body that has no
 * business on the management ring, or a control kind that is not a request is dropped and counted
 * in the region ({@code frames_undeliverable}) and here; nothing a peer writes can throw out of
 * {@link #doWork()}.
 */
public final class ManagementLoop {
    /** How long an answer may wait for a slot before it is dropped (the CLI drains promptly). */
    static final long ANSWER_WAIT_NANOS = 1_000_000_000L;

    private final Region region;
    private final ConsumerRing requests;
    private final ProducerRing answers;
    private final Deployments deployments;
    private final Supplier<Frame.Stats> statsSource;
    private final Supplier<String> helloText;
    private final CellSensors sensors;
    private final CellProbes probes;
    private final Consumer<String> out;
    private final ChunkAssembler assembler = new ChunkAssembler();
    private final byte[] rx;
    private final byte[] tx;
    private final Frame request = new Frame();
    private final Frame answer = new Frame();
    private long seq;
    private long dropped;
    private long answersDropped;
    /** The lanes' latencies as last printed in full (withDelivery): a status poll repeats them only when they changed. */
    private String deliveryPrinted = "";
    private volatile boolean running = true;

    /**
     * @param statsSource fills a STATS answer (called on this thread)
     * @param helloText the HELLO answer's text, made when asked (called on this thread)
     * @param out the agent's console (one line per deploy / undeploy and per rejected frame burst)
     */
    public ManagementLoop(Region region, Deployments deployments, Supplier<Frame.Stats> statsSource, Supplier<String> helloText,
            Consumer<String> out) {
        this(region, deployments, statsSource, helloText, CellSensors.unavailable("the agent runs no sensor simulator"), out);
    }

    /** @param sensors the cell's sensors: traces to replay and SENSOR_STATUS go there */
    public ManagementLoop(Region region, Deployments deployments, Supplier<Frame.Stats> statsSource, Supplier<String> helloText,
            CellSensors sensors, Consumer<String> out) {
        this(region, deployments, statsSource, helloText, sensors, CellProbes.none(), out);
    }

    /** @param probes the cell's characterisation probes (PROBE_RUN) */
    public ManagementLoop(Region region, Deployments deployments, Supplier<Frame.Stats> statsSource, Supplier<String> helloText,
            CellSensors sensors, CellProbes probes, Consumer<String> out) {
        this.region = region;
        this.probes = probes;
        this.requests = region.consumer(Region.MANAGEMENT_RING);
        this.answers = region.producer(Region.MANAGEMENT_RING);
        this.deployments = deployments;
        this.statsSource = statsSource;
        this.helloText = helloText;
        this.sensors = sensors;
        this.out = out;
        this.rx = new byte[region.layout().maxFrameBytes()];
        this.tx = new byte[region.layout().maxFrameBytes()];
    }

    /** Serves until {@link #stop()}. */
    public void run(Backoff backoff) {
        while (running) {
            if (doWork()) {
                backoff.reset();
            } else {
                backoff.idle();
            }
        }
    }

    public void stop() {
        running = false;
    }

    /** Frames on ring 0 that were dropped (undecodable, wrong body, not a request). */
    public long dropped() {
        return dropped;
    }

    /** Answers that found ring 0 full for {@link #ANSWER_WAIT_NANOS} and were dropped. */
    public long answersDropped() {
        return answersDropped;
    }

    /** Handles at most one request frame. @return true if a frame was taken off the ring */
    public boolean doWork() {
        CellProbes.Result probed = probes.poll();
        if (probed != null) {
            answerProbe(probed);
            return true;
        }
        int len = requests.poll(rx);
        if (len <= 0) {
            return false;
        }
        try {
            handle(len);
        } catch (RuntimeException | LinkageError e) {
            // A bug triggered by a hostile frame must not take the cell's system server down.
            drop("request raised " + e);
        }
        return true;
    }

    private void handle(int len) {
        int rc = FrameCodec.decode(rx, 0, len, request);
        if (rc != FrameCodec.OK) {
            drop("undecodable frame (" + FrameCodec.describe(rc) + ")");
            return;
        }
        switch (request.bodyKind()) {
            case Frame.BODY_DEPLOY_CHUNK:
                onChunk(request.deployChunk());
                return;
            case Frame.BODY_CONTROL:
                onControl(request.control());
                return;
            default:
                drop(Frame.bodyName(request.bodyKind()) + " frame on the management ring");
        }
    }

    private void onChunk(Frame.DeployChunk chunk) {
        String name = chunk.bundleString();
        boolean trace = chunk.content() == Frame.DeployChunk.SENSOR_TRACE;
        ChunkAssembler.Outcome o = assembler.accept(name, chunk.content(), chunk.index(), chunk.count(), chunk.totalBytes(),
                chunk.bundleCrc32(), chunk.data().array(), 0, chunk.data().length());
        switch (o) {
            case IN_PROGRESS:
                return;
            case SWALLOWED:
                requests.countUndeliverable();
                dropped++;
                return;
            case REFUSED:
                out.accept("rtcell: " + (trace ? "replay " : "deploy ") + printable(name) + ": "
                        + ResultCode.name(ResultCode.BAD_CHUNK) + ": " + assembler.refusal());
                answerControl(trace ? Frame.Control.ERROR : Frame.Control.DEPLOY_RESULT, ResultCode.BAD_CHUNK, name,
                        assembler.refusal());
                return;
            case COMPLETE:
            default:
                byte[] bundle = assembler.takeCompleted();
                if (assembler.completedContent() == Frame.DeployChunk.SENSOR_TRACE) {
                    replay(name, bundle);
                    return;
                }
                if (probes.running()) {
                    String why = "the cell is being characterised (a probe is running)";
                    out.accept("rtcell: deploy " + printable(name) + ": " + ResultCode.name(ResultCode.BUSY) + ": " + why);
                    answerControl(Frame.Control.DEPLOY_RESULT, ResultCode.BUSY, name, why);
                    return;
                }
                try {
                    Deployments.Deployment d = deployments.deploy(name, bundle);
                    out.accept("rtcell: deploy " + printable(d.name()) + ": OK");
                    if (d.downgrade()) {
                        out.accept("rtcell: deploy " + d.name() + ": version " + d.versionCode() + " replaces "
                                + d.previousVersionCode() + " (a downgrade, signed for it)");
                    }
                    answerControl(Frame.Control.DEPLOY_RESULT, ResultCode.OK, d.name(), d.describe());
                } catch (DeployRefusal r) {
                    out.accept("rtcell: deploy " + printable(name) + ": " + ResultCode.name(r.code()) + ": " + r.reason());
                    answerControl(Frame.Control.DEPLOY_RESULT, r.code(), name, r.reason());
                }
        }
    }

    /** A motion trace: checked whole, then replayed by the cell's sensors; ACK at once or ERROR. */
    private void replay(String name, byte[] trace) {
        try {
            String what = sensors.replay(name, trace);
            out.accept("rtcell: replay " + printable(name) + ": " + what);
            answerControl(Frame.Control.ACK, ResultCode.OK, name, what);
        } catch (DeployRefusal r) {
            out.accept("rtcell: replay " + printable(name) + ": " + ResultCode.name(r.code()) + ": " + r.reason());
            answerControl(Frame.Control.ERROR, r.code(), name, r.reason());
        }
    }

    private void onControl(Frame.Control c) {
        switch (c.kind()) {
            case Frame.Control.SENSOR_STATUS:
                try {
                    answerControl(Frame.Control.ACK, ResultCode.OK, "", withDelivery(sensors.status(),
                            deployments.sensorDelivery(), this::printDelivery));
                } catch (DeployRefusal r) {
                    answerControl(Frame.Control.ERROR, r.code(), "", r.reason());
                }
                return;
            case Frame.Control.PROBE_RUN: {
                String kind = c.subjectString();
                try {
                    String what = probes.start(kind, c.textString(), !deployments.services().isEmpty());
                    out.accept("rtcell: probe: running " + what);
                } catch (DeployRefusal r) {
                    out.accept("rtcell: probe " + printable(kind) + ": " + ResultCode.name(r.code()) + ": " + r.reason());
                    answerControl(Frame.Control.ERROR, r.code(), kind, r.reason());
                }
                return;
            }
            case Frame.Control.HELLO:
                answerControl(Frame.Control.HELLO, ResultCode.OK, "", helloText.get());
                return;
            case Frame.Control.UNDEPLOY: {
                String name = c.subjectString();
                try {
                    deployments.undeploy(name);
                    out.accept("rtcell: undeploy " + printable(name) + ": OK");
                    answerControl(Frame.Control.ACK, ResultCode.OK, name, "undeployed " + name);
                } catch (DeployRefusal r) {
                    out.accept("rtcell: undeploy " + printable(name) + ": " + ResultCode.name(r.code()) + ": " + r.reason());
                    answerControl(Frame.Control.ERROR, r.code(), name, r.reason());
                }
                return;
            }
            case Frame.Control.LIST_SERVICES:
                listServices();
                return;
            case Frame.Control.TIMELINE_REQUEST:
                timelines(c.code());
                return;
            case Frame.Control.STATS_REQUEST: {
                Frame.Control a = startAnswer(Frame.Control.STATS, ResultCode.OK, "", "");
                Frame.Stats s = statsSource.get();
                Frame.Stats dst = a.selectStats();
                dst.framesIn(s.framesIn()).framesOut(s.framesOut()).droppedCorrupt(s.droppedCorrupt())
                        .droppedUndeliverable(s.droppedUndeliverable()).droppedFull(s.droppedFull())
                        .resyncs(s.resyncs()).peerRestarts(s.peerRestarts());
                send();
                return;
            }
            default:
                drop("control kind " + c.kind() + " is not a management request");
        }
    }

    /**
     * A finished probe's answer: its output as PROBE_OUTPUT chunks (CRC-32 of the whole, as a
     * bundle's), then ACK or ERROR with how it ended. Not real-time work: this thread's ordinary
     * priority, and each frame waits for the CLI to drain the ring as any answer does.
     */
    private void answerProbe(CellProbes.Result r) {
        byte[] data = r.output();
        int chunk = XccBounds.MAX_DEPLOY_CHUNK_DATA_BYTES;
        int count = Math.max(1, (data.length + chunk - 1) / chunk);
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(data);
        for (int i = 0; i < count; i++) {
            answer.clear();
            Frame.DeployChunk d = answer.selectDeployChunk();
            setBounded(d.bundle(), r.kind());
            int from = i * chunk;
            int n = Math.min(chunk, data.length - from);
            d.index(i).count(count).totalBytes(data.length).bundleCrc32((int) crc.getValue())
                    .content(Frame.DeployChunk.PROBE_OUTPUT);
            d.data().set(data, from, Math.max(0, n));
            send();
        }
        out.accept("rtcell: probe " + r.kind() + ": " + ResultCode.name(r.code()) + ": " + r.text() + ", "
                + data.length + " bytes of rows");
        answerControl(r.code() == ResultCode.OK ? Frame.Control.ACK : Frame.Control.ERROR, r.code(), r.kind(), r.text());
    }

    private void listServices() {
        List<Deployments.ServiceRow> rows = deployments.services();
        int count = rows.size();
        if (count == 0) {
            Frame.Control a = startAnswer(Frame.Control.SERVICE_INFO, ResultCode.OK, "", "");
            a.selectService().index(0).count(0);
            send();
            return;
        }
        for (int i = 0; i < count; i++) {
            Deployments.ServiceRow row = rows.get(i);
            FailureCause cause = row.cause();
            // A failed component's cause rides in the answer's subject (exception class) and text
            // (protocols.md, "Failure cause"), the text cut to what the slot leaves room for.
            Frame.Control a = startAnswer(Frame.Control.SERVICE_INFO, ResultCode.OK,
                    cause == null ? "" : className(cause.exceptionClass()), "");
            Frame.ServiceInfo s = a.selectService();
            setBounded(s.name(), row.name());
            setBounded(s.state(), row.state());
            s.releases(row.releases()).deadlineMisses(row.deadlineMisses())
                    .worstLatenessNanos(row.worstLatenessNanos()).worstResponseNanos(row.worstResponseNanos())
                    .analysedWcrtNanos(row.analysedWcrtNanos()).cpuPlusOne(row.cpu() + 1)
                    .worstExecutionNanos(row.execution().worstNanos()).analysedCostNanos(row.execution().costNanos())
                    .costOverruns(row.execution().overruns()).lastCostOverrun(row.execution().lastOverrun())
                    .index(i).count(count);
            if (cause != null) {
                // send() adds seq and send_time (up to 11 bytes each); the text adds its tag, a 2-byte
                // length and may lengthen the control's own length by a byte
                int room = tx.length - FrameCodec.encodedSize(answer) - 2 * 11 - 4;
                setBounded(a.text(), causeText(cause, Math.min(a.text().capacity(), room)));
            }
            send();
        }
    }

    /** Entries one TIMELINE_REQUEST answers with at most (each track's newest, shared evenly). */
    static final int MAX_TIMELINE_ENTRIES = 16_384;

    /** One entry copied out of a past timeline, with the track it came from. */
    private record TimelineCopy(TimelineTrack track, ExecutedInterval job) {}

    /**
     * The past timelines' entries that ended in the last {@code seconds} (0: all kept), as TIMELINE
     * frames numbered {@code index}/{@code count}, oldest first per track; none: one entry with
     * count 0. Entries are copied out of each timeline first (one a writer overwrote meanwhile is
     * skipped), then sent: the answer is one consistent snapshot however slowly the CLI drains it.
     */
    private void timelines(long seconds) {
        long now = System.nanoTime();
        long since = seconds <= 0 ? Long.MIN_VALUE : now - seconds * 1_000_000_000L;
        List<TimelineTrack> tracks = deployments.timelines();
        List<TimelineCopy> copies = new ArrayList<>();
        for (TimelineTrack t : tracks) {
            PastTimeline past = t.past();
            long end = past.recorded();
            long first = Math.max(past.oldest(), end - MAX_TIMELINE_ENTRIES / Math.max(1, tracks.size()));
            for (long s = first; s < end; s++) {
                ExecutedInterval job = new ExecutedInterval();
                if (past.read(s, job) && job.actualEndNanos() >= since) {
                    copies.add(new TimelineCopy(t, job));
                }
            }
        }
        int count = copies.size();
        if (count == 0) {
            startAnswer(Frame.Control.TIMELINE, ResultCode.OK, "", "").selectTimeline().index(0).count(0)
                    .cellNowNanos(now);
            send();
            return;
        }
        for (int i = 0; i < count; i++) {
            TimelineTrack t = copies.get(i).track();
            ExecutedInterval job = copies.get(i).job();
            String label = t.kind().equals(TimelineTrack.ENGINE) ? t.past().className(job.classTag()) : null;
            Frame.TimelineEntry te = startAnswer(Frame.Control.TIMELINE, ResultCode.OK, "", "").selectTimeline();
            setBounded(te.track(), t.name());
            setBounded(te.label(), label == null ? "" : label);
            te.index(i).count(count).seq(job.seq()).classTag(job.classTag()).flags(job.flags())
                    .plannedBeginNanos(job.plannedBeginNanos()).plannedEndNanos(job.plannedEndNanos())
                    .actualBeginNanos(job.actualBeginNanos()).actualEndNanos(job.actualEndNanos())
                    .tid(t.tid()).cellNowNanos(now).kind(switch (t.kind()) {
                        case TimelineTrack.ENGINE -> 1;
                        case TimelineTrack.TASK -> 2;
                        default -> 3;
                    });
            send();
        }
    }

    /** The exception class within the subject's bound: leading package names go first. */
    static String className(String name) {
        String n = name;
        while (n.length() > XccBounds.MAX_CONTROL_SUBJECT_BYTES && n.indexOf('.') >= 0) {
            n = n.substring(n.indexOf('.') + 1);
        }
        return n;
    }

    /**
     * The text of a failed service's SERVICE_INFO, at most {@code maxBytes} of UTF-8:
     * {@code release <n>[ task <name>]}, the message (newlines become spaces; cut if it must be),
     * then one {@code at <frame>} line per stack frame that fits whole.
     */
    static String causeText(FailureCause cause, int maxBytes) {
        StringBuilder b = new StringBuilder("release ").append(cause.release());
        if (cause.task() != null) {
            b.append(" task ").append(cause.task());
        }
        b.append('\n');
        String message = cause.message().replace('\r', ' ').replace('\n', ' ');
        byte[] m = message.getBytes(StandardCharsets.UTF_8);
        int room = Math.max(0, maxBytes - utf8Length(b));
        int n = Math.min(m.length, room);
        while (n < m.length && n > 0 && (m[n] & 0xC0) == 0x80) {
            n--; // do not split a multi-byte character
        }
        b.append(new String(m, 0, n, StandardCharsets.UTF_8));
        for (String frame : cause.frames()) {
            String line = "\nat " + frame;
            if (utf8Length(b) + utf8Length(line) > maxBytes) {
                break;
            }
            b.append(line);
        }
        return b.toString();
    }

    private static int utf8Length(CharSequence s) {
        return s.toString().getBytes(StandardCharsets.UTF_8).length;
    }

    private void answerControl(int kind, int code, String subject, String text) {
        startAnswer(kind, code, subject, text);
        send();
    }

    private Frame.Control startAnswer(int kind, int code, String subject, String text) {
        answer.clear();
        Frame.Control c = answer.selectControl();
        c.kind(kind).code(code);
        setBounded(c.subject(), subject);
        setBounded(c.text(), text);
        return c;
    }

    private void send() {
        answer.seq(++seq).sendTimeNanos(System.nanoTime());
        int len = FrameCodec.encode(answer, tx, 0);
        if (len <= 0) {
            out.accept("rtcell: cannot encode an answer (" + FrameCodec.describe(len) + "); dropped");
            answersDropped++;
            return;
        }
        // Management answers are not real-time: wait a little for the CLI to drain, then drop and count.
        long deadline = System.nanoTime() + ANSWER_WAIT_NANOS;
        Backoff wait = new Backoff(0, 10, 50_000L, 5_000_000L);
        while (!answers.offer(tx, 0, len)) {
            if (System.nanoTime() - deadline > 0 || !running) {
                answersDropped++;
                out.accept("rtcell: management ring full for 1 s; answer dropped");
                return;
            }
            wait.idle();
        }
    }

    private void drop(String why) {
        requests.countUndeliverable();
        dropped++;
        // One console line per power of two keeps a flood of garbage from flooding the console.
        if (Long.bitCount(dropped) == 1) {
            out.accept("rtcell: management ring: dropped " + why + " (" + dropped + " dropped so far)");
        }
    }

    /**
     * The sensors' status followed by the lanes' device-to-listener latencies, as many whole lanes
     * as fit in one answer's text; the rest are counted there and go to the console in full.
     */
    static String withDelivery(String status, String delivery, Consumer<String> console) {
        if (delivery.isEmpty()) {
            return status;
        }
        String[] lanes = delivery.split("; ");
        StringBuilder sb = new StringBuilder(status).append("; device to listener: ");
        int fitted = 0;
        while (fitted < lanes.length) {
            String next = (fitted == 0 ? "" : ", ") + lanes[fitted];
            if (utf8Length(sb) + utf8Length(next) + utf8Length(onTheConsole(lanes.length - fitted - 1))
                    > XccBounds.MAX_CONTROL_TEXT_BYTES) {
                break;
            }
            sb.append(next);
            fitted++;
        }
        if (fitted < lanes.length) {
            sb.append(onTheConsole(lanes.length - fitted));
            console.accept("rtcell: sensor delivery, device to listener: " + delivery);
        }
        return sb.toString();
    }

    private void printDelivery(String line) {
        if (!line.equals(deliveryPrinted)) {
            deliveryPrinted = line;
            out.accept(line);
        }
    }

    private static String onTheConsole(int lanes) {
        return lanes == 0 ? "" : " (+" + lanes + (lanes == 1 ? " lane" : " lanes") + " on the console)";
    }

    /** Copies {@code text} as UTF-8 into a bounded field, cut at a character boundary if too long. */
    static void setBounded(org.rtdroid.bridge.codec.BoundedBytes field, String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(b.length, field.capacity());
        while (n < b.length && n > 0 && (b[n] & 0xC0) == 0x80) {
            n--; // do not split a multi-byte character
        }
        field.set(b, 0, n);
    }

    /** A name from a frame, for the console: escaped, at most as long as a name may be. */
    private static String printable(String name) {
        return Printable.escape(name.length() > XccBounds.MAX_DEPLOY_CHUNK_BUNDLE_BYTES
                ? name.substring(0, XccBounds.MAX_DEPLOY_CHUNK_BUNDLE_BYTES) + "..." : name);
    }
}
