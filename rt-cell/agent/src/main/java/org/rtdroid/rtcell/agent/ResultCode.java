package org.rtdroid.rtcell.agent;

/** Result codes of the management exchange ({@code bridge/docs/protocols.md}, {@code Control.code}). */
public final class ResultCode {
    public static final int OK = 0;
    public static final int BAD_CHUNK = 1;
    public static final int BAD_SIGNATURE = 2;
    public static final int BAD_MANIFEST = 3;
    public static final int OVER_BUDGET = 4;
    public static final int LOAD_FAILED = 5;
    public static final int START_FAILED = 6;
    public static final int DUPLICATE = 7;
    public static final int NOT_FOUND = 8;
    public static final int BAD_BUNDLE = 9;
    public static final int DOWNGRADE = 10;
    public static final int STATE_FAILED = 11;
    public static final int UNSCHEDULABLE = 12;
    public static final int CHANNEL_OVERFLOW = 13;
    public static final int BAD_TRACE = 14;
    public static final int SENSORS_UNAVAILABLE = 15;
    public static final int BUSY = 16;
    public static final int BAD_PROBE = 17;
    public static final int PROBE_UNAVAILABLE = 18;
    public static final int PROBE_FAILED = 19;

    private ResultCode() {
    }

    /** The code of an admission refusal: the analysis's reason names its kind first. */
    public static int ofAdmissionReason(String reason) {
        if (reason.startsWith("UNSCHEDULABLE:")) {
            return UNSCHEDULABLE;
        }
        if (reason.startsWith("CHANNEL_OVERFLOW:")) {
            return CHANNEL_OVERFLOW;
        }
        if (reason.startsWith("PARTITION:")) {  // the manifest pins a component where the cell cannot run it
            return BAD_MANIFEST;
        }
        return OVER_BUDGET;
    }

    public static String name(int code) {
        switch (code) {
            case OK: return "OK";
            case BAD_CHUNK: return "BAD_CHUNK";
            case BAD_SIGNATURE: return "BAD_SIGNATURE";
            case BAD_MANIFEST: return "BAD_MANIFEST";
            case OVER_BUDGET: return "OVER_BUDGET";
            case LOAD_FAILED: return "LOAD_FAILED";
            case START_FAILED: return "START_FAILED";
            case DUPLICATE: return "DUPLICATE";
            case NOT_FOUND: return "NOT_FOUND";
            case BAD_BUNDLE: return "BAD_BUNDLE";
            case DOWNGRADE: return "DOWNGRADE";
            case STATE_FAILED: return "STATE_FAILED";
            case UNSCHEDULABLE: return "UNSCHEDULABLE";
            case CHANNEL_OVERFLOW: return "CHANNEL_OVERFLOW";
            case BAD_TRACE: return "BAD_TRACE";
            case SENSORS_UNAVAILABLE: return "SENSORS_UNAVAILABLE";
            case BUSY: return "BUSY";
            case BAD_PROBE: return "BAD_PROBE";
            case PROBE_UNAVAILABLE: return "PROBE_UNAVAILABLE";
            case PROBE_FAILED: return "PROBE_FAILED";
            default: return "CODE_" + code;
        }
    }
}
