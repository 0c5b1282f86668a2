package org.rtdroid.rtcell.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The bundle {@code versionCode} deployed last per application: the cell's rollback protection.
 * An ordinary deployment may only keep or raise it; a bundle signed as a downgrade may lower it.
 * Undeploying leaves it alone.
 *
 * <p>The record is text (a header line, then {@code <application> <versionCode>} lines), kept by
 * one {@link VersionStore}: the file {@code <dir>/versions} ({@link DirectoryStore}, the host
 * board's {@code --state-dir}) or a raw block device of the cell's own ({@link BlockDeviceStore},
 * the QEMU cell's {@code --state-device}); each change is persisted before it takes effect, so a
 * restart of the cell keeps it and a crash leaves either the old or the new record. A record that
 * cannot be read back exactly is an error naming where and the line, never an empty record:
 * forgetting the versions would silently reopen every rollback. Without a store the record lives
 * as long as the agent.
 */
public final class DeployedVersions {
    public static final String FILE_NAME = DirectoryStore.FILE_NAME;
    static final String HEADER = "# rtdroid RT cell: bundle versionCode deployed last, per application";
    static final int MAX_FILE_BYTES = 1 << 20;
    static final int SHOWN = 16; // applications named in the start-up line
    private static final Pattern LINE = Pattern.compile("([A-Za-z0-9][A-Za-z0-9._-]{0,62}) ([1-9][0-9]{0,9})");

    private final VersionStore store;
    private final Map<String, Integer> versions = new TreeMap<>();
    private boolean loaded;

    private DeployedVersions(VersionStore store) {
        this.store = store;
        this.loaded = store == null;
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
        DeployedVersions v = new DeployedVersions(new DirectoryStore(stateDir));
        v.load();
        return v;
    }

    /**
     * The record on the raw block device {@code device} (or in the physical range
     * {@code /dev/mem@0xADDRESS+BYTES}), not read yet: a QEMU cell restored from
     * its boot snapshot reads it with {@link #load} after the restore, never before (a record read
     * before the snapshot would be the snapshot's, stale, for ever).
     */
    public static DeployedVersions onDevice(Path device) {
        // DEVICE@0xADDRESS+BYTES: a physical range (the Xen RT domain's state bank), else a block device
        RegionLocator.PhysicalRange range = RegionLocator.physicalRange(device.toString());
        return new DeployedVersions(range != null ? new PhysicalMemoryStore(range) : new BlockDeviceStore(device));
    }

    /**
     * Reads the record from its store and writes it back at once (an unwritable store is found at
     * start-up). Before it, the record refuses to answer.
     *
     * @throws IOException naming where (and the line) when the record is unreadable, corrupt or unwritable
     */
    public synchronized void load() throws IOException {
        byte[] bytes = store.read(); // null: a cell that never recorded a version there
        versions.clear();
        if (bytes != null) {
            parse(bytes);
        }
        write(versions);
        loaded = true;
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
        return new IOException("the version record " + store.name() + (line > 0 ? ":" + line : "") + " is corrupt: " + problem
                + "; it is not reset automatically (that would allow rollbacks): restore it, or delete it"
                + " to forget every application's version");
    }

    /** The version deployed last of {@code app}, 0 when none ever was. */
    public synchronized int of(String app) {
        requireLoaded();
        return versions.getOrDefault(app, 0);
    }

    /**
     * Records {@code version} (0 forgets the application) and, with a state directory, persists the
     * record before returning; on failure the record is left as it was.
     *
     * @throws IOException naming the file when it cannot be written
     */
    public synchronized void set(String app, int version) throws IOException {
        requireLoaded();
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

    /** Where the record was read from and is kept, for the console. */
    public String where() {
        return store == null ? "kept in memory only (no --state-dir or --state-device): a restart of the cell forgets them"
                : "read from " + store.name();
    }

    /**
     * The console's lines on the record as read at start-up: how many applications and where from,
     * then one line per application (the first {@link #SHOWN}) with its version, so a restart shows
     * which record it came back with. One short line each: a Xen domain's console cuts long lines.
     * Names and numbers match {@code LINE}, so nothing in them can forge a line.
     */
    public synchronized List<String> summary() {
        requireLoaded();
        List<String> lines = new ArrayList<>();
        lines.add("versions of " + versions.size() + " application(s) " + where());
        for (Map.Entry<String, Integer> e : versions.entrySet()) {
            if (lines.size() > SHOWN) {
                lines.add("and " + (versions.size() - SHOWN) + " more application(s)");
                break;
            }
            lines.add("recorded version: " + e.getKey() + " " + e.getValue());
        }
        return lines;
    }

    /** The number of applications recorded. */
    public synchronized int size() {
        requireLoaded();
        return versions.size();
    }

    private void requireLoaded() {
        if (!loaded) {
            throw new IllegalStateException("the version record " + store.name() + " has not been read yet (load)");
        }
    }

    private void write(Map<String, Integer> record) throws IOException {
        if (store == null) {
            return;
        }
        StringBuilder text = new StringBuilder(HEADER).append('\n');
        record.forEach((app, v) -> text.append(app).append(' ').append(v).append('\n'));
        store.write(text.toString().getBytes(StandardCharsets.UTF_8));
    }
}
