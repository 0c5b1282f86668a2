package org.rtdroid.runtime.sensor.sim;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.os.PosixIo;
import org.rtdroid.runtime.sensor.InputEvents;

/**
 * Writes sensor frames as {@code struct input_event} records (three axis events and a
 * {@code SYN_REPORT}) to a descriptor in one {@code write(2)}: a uinput device (the kernel then
 * stamps the events itself) or a FIFO a reader treats as an input device (the records carry the
 * CLOCK_MONOTONIC time of the write). Pre-allocated buffer: writing a frame allocates nothing.
 */
public class InputEventWriter implements AutoCloseable {
    public static final int FRAME_RECORDS = 4;

    private final String label;
    private final int firstAxisCode;
    private final MemorySegment frame;
    protected int fd;

    /** @param fd an open descriptor the writer now owns; @param firstAxisCode ABS_X or ABS_RX */
    public InputEventWriter(String label, int fd, int firstAxisCode) {
        this.label = label;
        this.fd = fd;
        this.firstAxisCode = firstAxisCode;
        this.frame = Arena.ofAuto().allocate((long) FRAME_RECORDS * InputEvents.RECORD_BYTES, 8);
    }

    /** Opens {@code path} for writing (a FIFO blocks here until a reader has it open). */
    public static InputEventWriter open(String label, String path, int firstAxisCode) {
        int fd = PosixIo.open(path, PosixIo.O_WRONLY | PosixIo.O_CLOEXEC);
        if (fd < 0) {
            throw new IllegalStateException("cannot open " + path + " for writing: " + PosixIo.describe(fd));
        }
        return new InputEventWriter(label, fd, firstAxisCode);
    }

    /**
     * Writes one frame (x, y, z in raw units, then SYN_REPORT) stamped now.
     *
     * @return the CLOCK_MONOTONIC time just before the write (what the records carry, to the µs)
     */
    public long writeFrame(int x, int y, int z) {
        long now = Linux.monotonicNanos();
        writeFrameAt(now, x, y, z);
        return now;
    }

    /**
     * Writes one frame stamped {@code timeNanos} (a FIFO's reader takes the stamp as written; a
     * uinput device's kernel stamps its own time instead): replaying a trace at its own times
     * without waiting for them.
     */
    public void writeFrameAt(long now, int x, int y, int z) {
        InputEvents.put(frame, 0, now, InputEvents.EV_ABS, firstAxisCode, x);
        InputEvents.put(frame, InputEvents.RECORD_BYTES, now, InputEvents.EV_ABS, firstAxisCode + 1, y);
        InputEvents.put(frame, 2L * InputEvents.RECORD_BYTES, now, InputEvents.EV_ABS, firstAxisCode + 2, z);
        InputEvents.put(frame, 3L * InputEvents.RECORD_BYTES, now, InputEvents.EV_SYN, InputEvents.SYN_REPORT, 0);
        writeFully(frame, frame.byteSize());
    }

    /** Writes raw bytes as they are (tests: malformed and short records). */
    public void writeRaw(MemorySegment bytes, long count) {
        writeFully(bytes, count);
    }

    private void writeFully(MemorySegment buf, long count) {
        long done = 0;
        while (done < count) {
            long n = PosixIo.write(fd, buf, done, count - done);
            if (n < 0) {
                throw new IllegalStateException(label + ": write failed: " + PosixIo.describe((int) n));
            }
            done += n;
        }
    }

    public String label() { return label; }

    @Override
    public void close() {
        if (fd >= 0) {
            PosixIo.close(fd);
            fd = -1;
        }
    }
}
