package org.rtdroid.runtime.sensor;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.os.PosixIo;

/**
 * The polling thread's work: {@code poll(2)} over the sensors' input devices, {@code read(2)} of
 * {@code struct input_event} records into pre-allocated native buffers, framing by
 * {@code EV_SYN/SYN_REPORT}, and one raw frame per report into the queues of the processing
 * threads that use the device. Nothing on this path allocates once the devices are open.
 *
 * <p>Bad input is counted, never fatal: a record whose time is out of range is malformed; an
 * event type or code the device does not have is unknown; bytes that end a stream short of a
 * whole record are a short record; {@code SYN_DROPPED} (the kernel's buffer overflowed) drops the
 * frame in progress up to the next {@code SYN_REPORT}, as evdev clients must. A device that
 * ends (read returns 0 or an error such as ENODEV: the simulator destroyed it, a FIFO's writer
 * closed) is closed and looked for again every {@value #RESCAN_MILLIS} ms.
 */
final class InputReader {
    static final int RECORDS_PER_READ = 64;
    static final int RESCAN_MILLIS = 100;

    /** One input device: its locator, descriptor, read buffer and the axes' last values. */
    static final class Device {
        final String label;
        final int source;
        final int firstAxisCode;
        final InputDeviceLocator locator;
        final FrameQueue[] targets;
        final MemorySegment buf;
        final int[] axes = new int[3];
        volatile int fd = -1;
        int pending;
        boolean dropping;
        Path opened;

        Device(String label, int source, int firstAxisCode, InputDeviceLocator locator, FrameQueue[] targets, Arena arena) {
            this.label = label;
            this.source = source;
            this.firstAxisCode = firstAxisCode;
            this.locator = locator;
            this.targets = targets;
            this.buf = arena.allocate((long) RECORDS_PER_READ * InputEvents.RECORD_BYTES, 8);
        }
    }

    private final Device[] devices;
    private final MemorySegment pollfds;
    private volatile boolean running = true;
    private long nextRescanNanos;
    volatile long frames;
    volatile long malformed;
    volatile long unknown;
    volatile long shortRecords;
    volatile long syncDropped;
    volatile long opens;
    volatile long closes;
    volatile int lastErrno;
    volatile long pollFailures;

    InputReader(Device[] devices, Arena arena) {
        this.devices = devices;
        this.pollfds = arena.allocate((long) devices.length * PosixIo.POLLFD_BYTES, 8);
        for (int i = 0; i < devices.length; i++) {
            setPollFd(i, -1);
        }
    }

    private void setPollFd(int i, int fd) {
        long at = (long) i * PosixIo.POLLFD_BYTES;
        pollfds.set(JAVA_INT, at, fd);            // a negative fd is ignored by poll(2)
        pollfds.set(JAVA_SHORT, at + 4, PosixIo.POLLIN);
        pollfds.set(JAVA_SHORT, at + 6, (short) 0);
    }

    void stop() { running = false; }

    void run() {
        try {
            while (running) {
                openMissing();
                int n = PosixIo.pollNoErrno(pollfds, devices.length, RESCAN_MILLIS);
                if (n < 0) {
                    pollFailures++; // EINTR (or ENOMEM): poll again
                    continue;
                }
                for (int i = 0; n > 0 && i < devices.length; i++) {
                    long at = (long) i * PosixIo.POLLFD_BYTES;
                    short revents = pollfds.get(JAVA_SHORT, at + 6);
                    if (revents != 0) {
                        readDevice(i, revents);
                        n--;
                    }
                }
            }
        } finally {
            for (int i = 0; i < devices.length; i++) {
                if (devices[i].fd >= 0) {
                    close(i);
                }
            }
        }
    }

    /** Opens devices that are not open, at most every RESCAN_MILLIS (set-up work: allocates). */
    private void openMissing() {
        boolean missing = false;
        for (Device d : devices) {
            missing |= d.fd < 0;
        }
        if (!missing) {
            return;
        }
        long now = Linux.monotonicNanos();
        if (now < nextRescanNanos) {
            return;
        }
        nextRescanNanos = now + RESCAN_MILLIS * 1_000_000L;
        for (int i = 0; i < devices.length; i++) {
            Device d = devices[i];
            if (d.fd >= 0) {
                continue;
            }
            Path p = d.locator.locate();
            if (p == null) {
                continue;
            }
            int fd = PosixIo.open(p.toString(), PosixIo.O_RDONLY | PosixIo.O_NONBLOCK | PosixIo.O_CLOEXEC);
            if (fd < 0) {
                lastErrno = -fd;
                continue;
            }
            // evdev stamps events with CLOCK_REALTIME unless told otherwise; a FIFO answers ENOTTY.
            PosixIo.ioctl(fd, InputEvents.EVIOCSCLOCKID, scratchClockId());
            d.fd = fd;
            d.opened = p;
            d.pending = 0;
            d.dropping = false;
            opens++;
            setPollFd(i, fd);
        }
    }

    private MemorySegment clockId;

    private MemorySegment scratchClockId() {
        if (clockId == null) {
            clockId = Arena.ofAuto().allocate(4, 4);
            clockId.set(JAVA_INT, 0, Linux.CLOCK_MONOTONIC);
        }
        return clockId;
    }

    private void close(int i) {
        Device d = devices[i];
        PosixIo.close(d.fd);
        d.fd = -1;
        d.pending = 0;
        closes++;
        setPollFd(i, -1);
    }

    private void readDevice(int i, short revents) {
        Device d = devices[i];
        long cap = d.buf.byteSize();
        long n = PosixIo.readNoErrno(d.fd, d.buf, d.pending, cap - d.pending);
        if (n < 0 && (revents & (PosixIo.POLLERR | PosixIo.POLLHUP | PosixIo.POLLNVAL)) == 0) {
            return; // readable a moment ago, EAGAIN now: nothing lost, poll again
        }
        if (n <= 0) {
            // End of stream (0: a FIFO's writer left) or the device is gone (POLLERR/POLLHUP with
            // ENODEV: the simulator destroyed it): what is left is not a record.
            if (d.pending > 0) {
                shortRecords++;
            }
            close(i);
            return;
        }
        long total = d.pending + n;
        long whole = total - total % InputEvents.RECORD_BYTES;
        for (long at = 0; at < whole; at += InputEvents.RECORD_BYTES) {
            record(d, at);
        }
        int rest = (int) (total - whole);
        if (rest > 0) {
            MemorySegment.copy(d.buf, whole, d.buf, 0, rest);
        }
        d.pending = rest;
    }

    private void record(Device d, long at) {
        MemorySegment b = d.buf;
        long time = InputEvents.timeNanos(b, at);
        if (time < 0) {
            malformed++;
            return;
        }
        int type = InputEvents.type(b, at);
        int code = InputEvents.code(b, at);
        if (type == InputEvents.EV_ABS) {
            int axis = code - d.firstAxisCode;
            if (axis < 0 || axis > 2) {
                unknown++;
                return;
            }
            d.axes[axis] = InputEvents.value(b, at);
        } else if (type == InputEvents.EV_SYN) {
            if (code == InputEvents.SYN_REPORT) {
                if (d.dropping) {
                    d.dropping = false; // the frame the kernel cut is incomplete: skip it
                    return;
                }
                frames++;
                for (FrameQueue q : d.targets) {
                    q.offer(d.source, time, d.axes);
                }
            } else if (code == InputEvents.SYN_DROPPED) {
                syncDropped++;
                d.dropping = true;
            } else {
                unknown++;
            }
        } else {
            unknown++;
        }
    }

    /** Open devices now, by label: "accelerometer=/dev/input/event3" (reports; allocates). */
    String describeDevices() {
        StringBuilder sb = new StringBuilder();
        for (Device d : devices) {
            if (!sb.isEmpty()) {
                sb.append(", ");
            }
            sb.append(d.label).append('=').append(d.fd >= 0 ? String.valueOf(d.opened) : "not found (" + d.locator.describe() + ")");
        }
        return sb.toString();
    }

    boolean allOpen() {
        for (Device d : devices) {
            if (d.fd < 0) {
                return false;
            }
        }
        return true;
    }
}
