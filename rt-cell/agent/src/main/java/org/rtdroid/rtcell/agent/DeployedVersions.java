package org.rtdroid.rtcell.agent;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The bundle {@code versionCode} deployed last per application: the cell's rollback protection.
 * An ordinary deployment may only keep or raise it; a bundle signed as a downgrade may lower it.
 * Undeploying leaves it alone.
 *
 * <p>With a state directory the record is the file {@code <dir>/versions}, rewritten whole on each
 * change (temporary file, fsync, atomic rename, fsync of the directory), so a restart of the cell
 * keeps it and a crash leaves either the old or the new record. A record that cannot be read back
 * exactly is an error naming the file and the line, never an empty record: forgetting the versions
 * would silently reopen every rollback. Without a state directory the record lives as long as the
 * agent.
 */
public final class DeployedVersions {
    public static final String FILE_NAME = "versions";
    static final String HEADER = "# rtdroid RT cell: bundle versionCode deployed last, per application";
    static final int MAX_FILE_BYTES = 1 << 20;
    private static final Pattern LINE = Pattern.compile("([A-Za-z0-9][A-Za-z0-9._-]{0,62}) ([1-9][0-9]{0,9})");

    private final Path file;
    private final Map<String, Integer> versions = new TreeMap<>();

    private DeployedVersions(Path file) {
        this.file = file;
    }

    /** A record kept for the agent's lifetime only. */
    public static DeployedVersions inMemory() {
        return new DeployedVersions(null);
    }

    /**
     * Opens (or starts) the record in {@code stateDir}, creating the directory, and writes it back
     * at once so that an unwritable record is found at start-up rather than at the first deployment.
     *
     * @throws IOException naming the file (and line) when the record is unreadable, corrupt or unwritable
     */
    public static DeployedVersions open(Path stateDir) throws IOException {
        DeployedVersions v = new DeployedVersions(stateDir.resolve(FILE_NAME));
        try {
            Files.createDirectories(stateDir);
        } catch (IOException e) {
            throw new IOException("cannot create the state directory " + stateDir + ": " + e, e);
        }
        byte[] bytes;
        try (InputStream in = Files.newInputStream(v.file)) {
            bytes = in.readNBytes(MAX_FILE_BYTES + 1);
        } catch (NoSuchFileException e) {
            bytes = null; // a cell that never deployed with this state directory
        } catch (IOException e) {
            throw new IOException("cannot read the version record " + v.file + ": " + e, e);
        }
        if (bytes != null) {
            v.parse(bytes);
        }
        v.write(v.versions);
        return v;
    }

    private void parse(byte[] bytes) throws IOException {
        if (bytes.length > MAX_FILE_BYTES) {
            throw corrupt(0, "larger than " + MAX_FILE_BYTES + " bytes");
        }
        String text = new String(bytes, StandardCharsets.UTF_8);
        if (!text.endsWith("\n")) {
            throw corrupt(0, bytes.length == 0 ? "empty" : "does not end with a newline (cut short?)");
        }
        String[] lines = text.split("\n", -1);
        if (!lines[0].equals(HEADER)) {
            throw corrupt(1, "the first line is not the header '" + HEADER + "'");
        }
        for (int i = 1; i < lines.length - 1; i++) {
            var m = LINE.matcher(lines[i]);
            long version = m.matches() ? Long.parseLong(m.group(2)) : 0;
            if (version < 1 || version > Integer.MAX_VALUE) {
                throw corrupt(i + 1, "'" + Bundle.clip(lines[i]) + "' is not '<application> <versionCode>'");
            }
            if (versions.put(m.group(1), (int) version) != null) {
                throw corrupt(i + 1, "application '" + m.group(1) + "' is recorded twice");
            }
        }
    }

    private IOException corrupt(int line, String problem) {
        return new IOException("the version record " + file + (line > 0 ? ":" + line : "") + " is corrupt: " + problem
                + "; it is not reset automatically (that would allow rollbacks): restore it, or delete it"
                + " to forget every application's version");
    }

    /** The version deployed last of {@code app}, 0 when none ever was. */
    public synchronized int of(String app) {
        return versions.getOrDefault(app, 0);
    }

    /**
     * Records {@code version} (0 forgets the application) and, with a state directory, persists the
     * record before returning; on failure the record is left as it was.
     *
     * @throws IOException naming the file when it cannot be written
     */
    public synchronized void set(String app, int version) throws IOException {
        Map<String, Integer> next = new TreeMap<>(versions);
        if (version == 0) {
            next.remove(app);
        } else {
            next.put(app, version);
        }
        write(next);
        versions.clear();
        versions.putAll(next);
    }

    /** Where the record lives, for the console. */
    public String where() {
        return file == null ? "kept in memory only (no --state-dir): a restart of the cell forgets them"
                : "recorded in " + file;
    }

    /** The number of applications recorded. */
    public synchronized int size() {
        return versions.size();
    }

    private void write(Map<String, Integer> record) throws IOException {
        if (file == null) {
            return;
        }
        StringBuilder text = new StringBuilder(HEADER).append('\n');
        record.forEach((app, v) -> text.append(app).append(' ').append(v).append('\n'));
        Path dir = file.getParent();
        Path tmp = dir.resolve(FILE_NAME + ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ch.write(java.nio.ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8)));
                ch.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
                d.force(true); // the rename itself survives a power cut
            }
        } catch (IOException e) {
            throw new IOException("cannot write the version record " + file + ": " + e, e);
        }
    }
}
