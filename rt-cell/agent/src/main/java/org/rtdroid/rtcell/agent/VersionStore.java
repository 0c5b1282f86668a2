package org.rtdroid.rtcell.agent;

import java.io.IOException;

/** Where {@link DeployedVersions} keeps its record across restarts of the cell. */
interface VersionStore {
    /** The record as last written, or null when none was ever written here. */
    byte[] read() throws IOException;

    /** Persists {@code record} whole before returning; on failure the previous record stays readable. */
    void write(byte[] record) throws IOException;

    /** Where the record lives, for messages ("the version record NAME ..."). */
    String name();
}
