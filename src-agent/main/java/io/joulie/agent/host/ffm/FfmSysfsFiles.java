package io.joulie.agent.host.ffm;

import io.joulie.agent.host.SysfsFiles;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * {@link SysfsFiles} on the real files: reads and writes through libc by FFM ({@link NativeFile}: pread and pwrite
 * at offset 0, errno kept), directories listed with {@code java.nio}.
 */
public final class FfmSysfsFiles implements SysfsFiles {
    @Override
    public boolean isDirectory(Path path) {
        return Files.isDirectory(path);
    }

    @Override
    public List<Path> list(Path dir) throws IOException {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.toList();
        }
    }

    @Override
    public String readText(Path file) throws IOException {
        return NativeFile.readText(file);
    }

    @Override
    public long readDecimal(Path file) throws IOException {
        return NativeFile.readDecimal(file);
    }

    @Override
    public void writeText(Path file, String text) throws IOException {
        NativeFile.writeText(file, text);
    }

    @Override
    public OpenFile open(Path file, Access access) throws IOException {
        return NativeFile.open(file, switch (access) {
            case READ -> NativeFile.Mode.READ;
            case WRITE -> NativeFile.Mode.WRITE;
        });
    }
}
