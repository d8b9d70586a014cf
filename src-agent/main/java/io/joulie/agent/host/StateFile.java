package io.joulie.agent.host;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * One file in JOULIE_STATE_DIR (a hostPath that outlives the agent's container), replaced whole: a write goes to a
 * temporary file, is forced to disk, renamed over the file, and the directory is forced, so after a crash at any
 * moment the file holds either the old content or the new one, never a part.
 */
final class StateFile {
    private final Path dir;
    private final String name;

    StateFile(Path dir, String name) {
        this.dir = dir;
        this.name = name;
    }

    Path path() {
        return dir.resolve(name);
    }

    /** The content; empty when there is no file. */
    Optional<byte[]> read() throws IOException {
        try {
            return Optional.of(Files.readAllBytes(path()));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /** Replaces the content atomically. */
    void write(byte[] bytes) throws IOException {
        Files.createDirectories(dir);
        Path temporary = dir.resolve(name + ".tmp");
        try (FileChannel out = FileChannel.open(temporary, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                out.write(buffer);
            }
            out.force(true);
        }
        Files.move(temporary, path(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        forceDirectory();
    }

    /** Removes the file (no file: nothing happens). */
    void delete() throws IOException {
        if (Files.deleteIfExists(path())) {
            forceDirectory();
        }
    }

    /** The directory's entries (the rename, the removal) on disk too. */
    private void forceDirectory() throws IOException {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }
}
