package org.rtdroid.rtcell.agent;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The cell's sensors as the management ring sees them (protocols.md, "Sensor traces"): a motion
 * trace to replay into the cell's virtual accelerometer and gyroscope, and their state. Where the
 * kernel has no {@code /dev/uinput} (the host board's), or the agent cannot open it, the cell has
 * no sensors: every request is answered {@code SENSORS_UNAVAILABLE} with that one-line reason,
 * which the agent also prints at start-up.
 */
public class CellSensors implements AutoCloseable {
    private final String unavailable;

    /** Sensors that are not there, for {@code reason} (said after "sensors unavailable: "). */
    public static CellSensors unavailable(String reason) {
        return new CellSensors("sensors unavailable: " + reason);
    }

    protected CellSensors(String unavailable) {
        this.unavailable = unavailable;
    }

    /**
     * Why sensors cannot be made through {@code uinput} on this machine, or null when they can:
     * the device node must exist (the kernel has uinput, built in or loaded) and be writable.
     */
    public static String uinputProblem(Path uinput) {
        if (!Files.exists(uinput)) {
            return "this kernel has no " + uinput;
        }
        if (!Files.isWritable(uinput)) {
            return uinput + " is not writable by the agent (the sensor simulator needs root or write access)";
        }
        return null;
    }

    /** The sensors' input devices and replay state. @throws DeployRefusal SENSORS_UNAVAILABLE */
    public String status() throws DeployRefusal {
        throw new DeployRefusal(ResultCode.SENSORS_UNAVAILABLE, unavailable);
    }

    /**
     * Checks {@code trace} whole and starts replaying it.
     *
     * @return what is replayed (for the ACK's text)
     * @throws DeployRefusal BAD_TRACE, SENSORS_UNAVAILABLE or BUSY, with the reason
     */
    public String replay(String name, byte[] trace) throws DeployRefusal {
        throw new DeployRefusal(ResultCode.SENSORS_UNAVAILABLE, unavailable);
    }

    @Override
    public void close() {
    }
}
