package io.joulie.agent.host;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@link SysfsFiles} in memory, for the host layer's policy without FFM or a file system: files are a map of
 * paths to content, directories are what the paths imply, and a test can make the host refuse or fail a write.
 */
final class MemorySysfs implements SysfsFiles {
    /** A write of {@code value} (any value if null) to {@code file} fails with {@code kind}. */
    private record Failure(Path file, String value, HostFileException.Kind kind) {
    }

    private final Map<Path, String> files = new TreeMap<>();
    private final List<Failure> writeFailures = new ArrayList<>();
    private final Set<Path> refusedOpens = new LinkedHashSet<>();

    MemorySysfs put(Path file, Object value) {
        files.put(file, value.toString());
        return this;
    }

    String get(Path file) {
        return files.get(file);
    }

    /** Opening {@code file} for writing is refused, as a read-only or locked sysfs attribute refuses it. */
    MemorySysfs refuseOpeningForWrite(Path file) {
        refusedOpens.add(file);
        return this;
    }

    /** Writing {@code value} ({@code null}: any value) to {@code file} fails with {@code kind}. */
    MemorySysfs failWrite(Path file, String value, HostFileException.Kind kind) {
        writeFailures.add(new Failure(file, value, kind));
        return this;
    }

    @Override
    public boolean isDirectory(Path path) {
        return files.keySet().stream().anyMatch(f -> f.startsWith(path) && !f.equals(path));
    }

    @Override
    public List<Path> list(Path dir) throws IOException {
        if (!isDirectory(dir)) {
            throw new HostFileException("list " + dir + ": absent", HostFileException.Kind.ABSENT);
        }
        Set<Path> entries = new LinkedHashSet<>();
        for (Path file : files.keySet()) {
            if (file.startsWith(dir) && !file.equals(dir)) {
                entries.add(dir.resolve(dir.relativize(file).getName(0)));
            }
        }
        return List.copyOf(entries);
    }

    @Override
    public String readText(Path file) throws IOException {
        String value = files.get(file);
        if (value == null) {
            throw new HostFileException("read " + file + ": absent", HostFileException.Kind.ABSENT);
        }
        return value.strip();
    }

    @Override
    public long readDecimal(Path file) throws IOException {
        try {
            return Long.parseLong(readText(file));
        } catch (NumberFormatException e) {
            throw new IOException(file + ": not a decimal number");
        }
    }

    @Override
    public void writeText(Path file, String text) throws IOException {
        open(file, Access.WRITE).writeText(text);
    }

    @Override
    public OpenFile open(Path file, Access access) throws IOException {
        if (access == Access.WRITE && refusedOpens.contains(file)) {
            throw new HostFileException("open " + file + ": refused", HostFileException.Kind.REFUSED);
        }
        if (!files.containsKey(file)) {
            throw new HostFileException("open " + file + ": absent", HostFileException.Kind.ABSENT);
        }
        return new OpenFile() {
            @Override
            public Path path() {
                return file;
            }

            @Override
            public String readText() throws IOException {
                return MemorySysfs.this.readText(file);
            }

            @Override
            public long readDecimal() throws IOException {
                return MemorySysfs.this.readDecimal(file);
            }

            @Override
            public void writeText(String text) throws IOException {
                for (Failure f : writeFailures) {
                    if (f.file().equals(file) && (f.value() == null || f.value().equals(text))) {
                        throw new HostFileException("write " + file + ": " + f.kind(), f.kind());
                    }
                }
                files.put(file, text);
            }

            @Override
            public void close() {
            }
        };
    }
}
