package org.rtdroid.logic.papabench;

/** Paparazzi's modes, which jPapaBench mirrors (the values of the app's contract, autopilot.proto). */
public final class Modes {
    private Modes() {}

    /** The pilot's sticks drive the servos directly (the fly-by-wire passes them through). */
    public static final int MANUAL = 0;
    /** Stabilised: the sticks set roll and pitch angles, the autopilot's stabilisation holds them. */
    public static final int AUTO1 = 1;
    /** Autonomous: the autopilot flies the flight plan's waypoints at their altitudes. */
    public static final int AUTO2 = 2;
    /** Return to the home waypoint and circle it (also where AUTO2 ends after the last waypoint). */
    public static final int HOME = 3;

    private static final String[] NAMES = {"MANUAL", "AUTO1", "AUTO2", "HOME"};

    /** "MANUAL", "AUTO1", "AUTO2", "HOME", or null for another value. */
    public static String name(int mode) {
        return mode >= 0 && mode < NAMES.length ? NAMES[mode] : null;
    }
}
