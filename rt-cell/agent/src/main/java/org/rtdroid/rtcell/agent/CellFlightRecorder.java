package org.rtdroid.rtcell.agent;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.rtdroid.runtime.os.FlightRecorder;

/**
 * The cell's flight recorder ({@code --flight-recorder BOUND_US}): arms the runtime's
 * {@link FlightRecorder} once the agent's warm-ups are done (their cold releases would freeze it
 * at once), then waits on a thread of its own, at SCHED_OTHER, for the freeze. It then saves the
 * whole trace in the agent's work directory and writes the trace's last {@link #TAIL_BYTES} to the
 * console, which every board keeps on the host (a qemu board's {@code console.log}): between
 * {@code rtcell: flight record begins: <what froze it>} and {@code rtcell: flight record ends}, one
 * {@code rtcell: trace: } line per line of the trace. The end of the ring is what came just before
 * the slow release; the console is the one way out of the cell every board has.
 */
final class CellFlightRecorder {
    /** How much of the trace's end goes to the console (a few hundred ms of a busy cell's events). */
    static final int TAIL_BYTES = 256 * 1024;
    static final String TRACE_PREFIX = "rtcell: trace: ";

    private CellFlightRecorder() {}

    /** Arms the recorder and starts its watcher; a cell without tracefs runs on without it and says so. */
    static FlightRecorder start(long boundNanos, Path tracefs, Path workDir, Consumer<String> console) {
        FlightRecorder r;
        try {
            r = FlightRecorder.arm(tracefs, boundNanos, FlightRecorder.DEFAULT_BUFFER_KB);
        } catch (IOException | RuntimeException e) {
            console.accept("rtcell: flight recorder not armed: " + e.getMessage());
            return null;
        }
        console.accept(armedLine(r));
        Thread.ofPlatform().name("flight-recorder").daemon(true).start(() -> watch(r, workDir, console));
        return r;
    }

    static String armedLine(FlightRecorder r) {
        return "rtcell: flight recorder armed: freezes the trace at the first periodic release over "
                + r.boundNanos() / 1000 + " us or past its deadline, or the first callback over its declared cost (events " + String.join(" ", r.events()) + ", "
                + FlightRecorder.DEFAULT_BUFFER_KB + " KiB per CPU)";
    }

    private static void watch(FlightRecorder r, Path workDir, Consumer<String> console) {
        try {
            while (!r.frozen()) {
                Thread.sleep(100);
            }
            Path out = workDir.resolve("flight-record.txt");
            long bytes = r.save(out);
            console.accept("rtcell: flight record begins: " + r.frozenAt() + "; the trace (" + bytes
                    + " bytes) is in the cell at " + out + ", its last " + Math.min(bytes, TAIL_BYTES) + " bytes follow");
            try (RandomAccessFile f = new RandomAccessFile(out.toFile(), "r")) {
                long from = Math.max(0, f.length() - TAIL_BYTES);
                byte[] tail = new byte[(int) (f.length() - from)];
                f.seek(from);
                f.readFully(tail);
                String text = new String(tail, StandardCharsets.UTF_8);
                int start = from == 0 ? 0 : text.indexOf('\n') + 1;  // a whole first line
                for (String line : text.substring(start).split("\n")) {
                    console.accept(TRACE_PREFIX + line);
                }
            }
            console.accept("rtcell: flight record ends");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException | RuntimeException e) {
            console.accept("rtcell: flight record not saved: " + e.getMessage());
        }
    }
}
