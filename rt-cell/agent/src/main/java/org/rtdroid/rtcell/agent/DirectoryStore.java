package org.rtdroid.rtcell.agent;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * The record as the file {@code <dir>/versions}, rewritten whole on each change (temporary file,
 * fsync, atomic rename, fsync of the directory): a crash leaves either the old or the new record.
 */
final class DirectoryStore implements VersionStore {
    static final String FILE_NAME = "versions";

    private final Path dir;
    private final Path file;

    DirectoryStore(Path dir) {
        this.dir = dir;
        this.file = dir.resolve(FILE_NAME);
    }

    @Override
    public byte[] read() throws IOException {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new IOException("cannot create the state directory " + dir + ": " + e, e);
        }
        try (InputStream in = Files.newInputStream(file)) {
            return in.readNBytes(DeployedVersions.MAX_FILE_BYTES + 1);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw new IOException("cannot read the version record " + file + ": " + e, e);
        }
    }

    @Override
    public void write(byte[] record) throws IOException {
        Path tmp = dir.resolve(FILE_NAME + ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ch.write(ByteBuffer.wrap(record));
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

    @Override
    public String name() {
        return file.toString();
    }
}
