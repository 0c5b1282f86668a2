package org.rtdroid.logic.papabench;

/**
 * jPapaBench's fly-by-wire module: the state its four tasks share and each task's step.
 * <ul>
 *   <li>{@link #testPpm} (25 ms): a radio frame from the ground station (numbered; a new number is
 *       a new request), whose mode and sticks it keeps; in MANUAL the sticks drive the servos;</li>
 *   <li>{@link #sendDataToAutopilot} (25 ms): the radio and the failsafe flag, for the
 *       autopilot ({@link #radioSeq()}, {@link #radioMode()}, the sticks, {@link #failsafe()});</li>
 *   <li>{@link #checkFailsafe} (50 ms): no command from the autopilot for
 *       {@link #FAILSAFE_CHECKS} checks (the link is lost) is failsafe: wings and nose neutral,
 *       {@link #FAILSAFE_THROTTLE}, until a command arrives again;</li>
 *   <li>{@link #checkMega128Values} (50 ms): the autopilot's newest command (the SPI frame from
 *       the autopilot's microcontroller, the ATmega128), checked and applied to the servos.</li>
 * </ul>
 * The servos ({@link #aileron()}, {@link #elevator()}, {@link #throttle()}) go to the aircraft.
 * State is fields; a step allocates nothing.
 */
public final class FlyByWire {
    /** 4 checks of 50 ms: two autopilot commands (50 ms apart) missed and then some. */
    public static final int FAILSAFE_CHECKS = 4;
    public static final double FAILSAFE_THROTTLE = 0.3;

    private long radioSeq;
    /** The mode the radio asked for (relayed as asked: the autopilot refuses and counts a bad one). */
    private volatile int requestedMode = Autopilot.START_MODE;
    /** The last valid one: in MANUAL the sticks drive the servos. */
    private volatile int radioMode = Autopilot.START_MODE;
    private double rollStick;
    private double pitchStick;
    private double throttleStick = Autopilot.CRUISE_THROTTLE;
    private volatile int checksWithoutCommand = FAILSAFE_CHECKS; // no command yet: failsafe until the first
    private boolean commandSinceCheck;
    private volatile int commandMode = Autopilot.START_MODE;
    private double commandAileron;
    private double commandElevator;
    private double commandThrottle = Autopilot.CRUISE_THROTTLE;
    private volatile double aileron;
    private volatile double elevator;
    private volatile double throttle;
    private volatile long commandsRefused;

    /** TestPPM: a radio frame ({@code seq} numbers the ground station's requests; 0: none yet). */
    public void testPpm(long seq, int mode, double roll, double pitch, double throttleStick) {
        if (seq != radioSeq) {
            radioSeq = seq;
            requestedMode = mode;
            if (Modes.name(mode) != null) {
                radioMode = mode;
            }
            rollStick = roll;
            pitchStick = pitch;
            this.throttleStick = throttleStick;
        }
        if (radioMode == Modes.MANUAL) {
            servos(rollStick, pitchStick, this.throttleStick);
        }
    }

    /** CheckFailsafe: counts the checks without a command from the autopilot. */
    public void checkFailsafe() {
        checksWithoutCommand = commandSinceCheck ? 0 : Math.min(FAILSAFE_CHECKS, checksWithoutCommand + 1);
        commandSinceCheck = false;
        if (failsafe() && radioMode != Modes.MANUAL) {
            servos(0, 0, FAILSAFE_THROTTLE);
        }
    }

    /**
     * CheckMega128Values: the autopilot's newest command, if one arrived; out-of-range values refuse
     * it (counted). Then the servos: the radio's sticks in MANUAL, neutral in failsafe, else the command.
     */
    public void checkMega128Values(boolean arrived, int mode, double aileron, double elevator, double throttle) {
        if (arrived) {
            if (Modes.name(mode) != null && Math.abs(aileron) <= 1 && Math.abs(elevator) <= 1 && throttle >= 0
                    && throttle <= 1) {
                commandSinceCheck = true;
                checksWithoutCommand = 0;
                commandMode = mode;
                commandAileron = aileron;
                commandElevator = elevator;
                commandThrottle = throttle;
            } else {
                commandsRefused++;
            }
        }
        if (radioMode == Modes.MANUAL) {
            servos(rollStick, pitchStick, throttleStick);
        } else if (failsafe()) {
            servos(0, 0, FAILSAFE_THROTTLE);
        } else {
            servos(commandAileron, commandElevator, commandThrottle);
        }
    }

    private void servos(double a, double e, double t) {
        aileron = Laws.clamp(a, -1, 1);
        elevator = Laws.clamp(e, -1, 1);
        throttle = Laws.clamp(t, 0, 1);
    }

    /** True while the link to the autopilot is lost. */
    public boolean failsafe() { return checksWithoutCommand >= FAILSAFE_CHECKS; }

    public long radioSeq() { return radioSeq; }
    /** The mode the radio asked for last (relayed to the autopilot as asked). */
    public int radioMode() { return requestedMode; }
    public double rollStick() { return rollStick; }
    public double pitchStick() { return pitchStick; }
    public double throttleStick() { return throttleStick; }
    /** The mode of the autopilot's last command. */
    public int commandMode() { return commandMode; }
    public double aileron() { return aileron; }
    public double elevator() { return elevator; }
    public double throttle() { return throttle; }
    public long commandsRefused() { return commandsRefused; }
}
