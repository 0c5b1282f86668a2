package org.rtdroid.rtcell.agent;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** What the version stores' tests stand their record on: a blank file of a device's size, and a record's text. */
final class VersionRecordFiles {
    private VersionRecordFiles() {}

    /** A file of {@code bytes} zero bytes at {@code file} (a blank disk, or /dev/mem up to and past the bank). */
    static Path blank(Path file, long bytes) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(bytes);
        }
        return file;
    }

    static byte[] text(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
