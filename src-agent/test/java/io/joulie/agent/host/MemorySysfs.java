package io.joulie.agent.host;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@link SysfsFiles} in memory, for the host layer's policy without FFM or a file system: files are a map of
 * paths to content, directories are what the paths imply, and a test can make the host refuse or fail a write, or
 * watch every write (the fault-injection tests).
 */
public final class MemorySysfs implements SysfsFiles {
    /** Asked before every write through the port (opening for writing, then writing): a failure to inject, if any. */
    @FunctionalInterface
    public interface WriteHook {
        Optional<HostFileException.Kind> before(Path file, String value);
    }

    /** Told after every write through the port that succeeded, with the value it replaced. */
    @FunctionalInterface
    public interface WriteListener {
        void written(Path file, String before, String after);
    }

    /** A write of {@code value} (any value if null) to {@code file} fails with {@code kind}. */
    private record Failure(Path file, String value, HostFileException.Kind kind) {
    }

    private final Map<Path, String> files = new TreeMap<>();
    private final List<Failure> writeFailures = new ArrayList<>();
    private final Set<Path> refusedOpens = new LinkedHashSet<>();
    private WriteHook hook = (file, value) -> Optional.empty();
    private WriteListener listener = (file, before, after) -> { };

    /** Sets a file's content directly, as the kernel or someone else on the host would (no hook, no listener). */
    public MemorySysfs put(Path file, Object value) {
        files.put(file, value.toString());
        return this;
    }

    public String get(Path file) {
        return files.get(file);
    }

    public MemorySysfs hook(WriteHook hook) {
        this.hook = hook;
        return this;
    }

    public MemorySysfs listener(WriteListener listener) {
        this.listener = listener;
        return this;
    }

    /** Opening {@code file} for writing is refused, as a read-only or locked sysfs attribute refuses it. */
    public MemorySysfs refuseOpeningForWrite(Path file) {
        refusedOpens.add(file);
        return this;
    }

    /** Writing {@code value} ({@code null}: any value) to {@code file} fails with {@code kind}. */
    public MemorySysfs failWrite(Path file, String value, HostFileException.Kind kind) {
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
        if (access == Access.WRITE) {
            Optional<HostFileException.Kind> injected = hook.before(file, null);
            if (injected.isPresent()) {
                throw new HostFileException("open " + file + ": injected " + injected.get(), injected.get());
            }
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
                Optional<HostFileException.Kind> injected = hook.before(file, text);
                if (injected.isPresent()) {
                    throw new HostFileException("write " + file + ": injected " + injected.get(), injected.get());
                }
                String before = files.put(file, text);
                listener.written(file, before, text);
            }

            @Override
            public void close() {
            }
        };
    }
}
