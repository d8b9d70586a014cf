package io.joulie.e2e.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A memory cgroup with a limit, as a container runtime makes one for a Pod with {@code resources.limits.memory}: the
 * process started in it sees the limit (the JVM sizes its heap from it) and the kernel kills it when it needs more.
 * cgroup v2 ({@code memory.max}) where the unified hierarchy is mounted, v1 ({@code memory.limit_in_bytes}) otherwise.
 * Needs root, as a runtime does; without a writable hierarchy it throws, saying so, rather than measure nothing.
 */
final class MemoryCgroup implements AutoCloseable {
    private static final Path ROOT = Path.of("/sys/fs/cgroup");

    private final Path dir;
    private final boolean v2;

    private MemoryCgroup(Path dir, boolean v2) {
        this.dir = dir;
        this.v2 = v2;
    }

    /**
     * Creates the cgroup {@code joulie-e2e-<name>-<pid of this JVM>} with this limit: its own for each test run, so that
     * two builds on one machine never share a limit or each other's OOM kill count.
     */
    static MemoryCgroup create(String name, long limitBytes) {
        boolean v2 = Files.isRegularFile(ROOT.resolve("cgroup.controllers"));
        Path parent = v2 ? ROOT : ROOT.resolve("memory");
        Path dir = parent.resolve("joulie-e2e-" + name + "-" + ProcessHandle.current().pid());
        try {
            if (!Files.isDirectory(parent) || !Files.isWritable(parent)) {
                throw new IllegalStateException("no writable memory cgroup hierarchy at " + parent + " (the footprint "
                        + "checks run the applications under a memory limit as a container runtime would: they need root "
                        + "and the memory controller, see docs/testing.md)");
            }
            if (Files.isDirectory(dir)) {
                throw new IllegalStateException("memory cgroup " + dir + " exists already: a cgroup per run and name");
            }
            Files.createDirectories(dir);
            Files.writeString(dir.resolve(v2 ? "memory.max" : "memory.limit_in_bytes"), Long.toString(limitBytes));
            if (v2) {
                Files.writeString(dir.resolve("memory.swap.max"), "0");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot set up the memory cgroup " + dir, e);
        }
        return new MemoryCgroup(dir, v2);
    }

    /**
     * {@code command} run inside this cgroup: a shell that moves itself into it and then execs the command, so the
     * process sees the limit from its first instruction (a JVM reads it once, at start).
     */
    List<String> wrap(List<String> command) {
        List<String> wrapped = new ArrayList<>(List.of("/bin/sh", "-c",
                "echo $$ > '" + dir.resolve("cgroup.procs") + "' && exec \"$@\"", "sh"));
        wrapped.addAll(command);
        return wrapped;
    }

    /** The highest charge since creation (-1 where the kernel does not keep it: cgroup v2 before 5.19). */
    long peakBytes() {
        Path peak = dir.resolve(v2 ? "memory.peak" : "memory.max_usage_in_bytes");
        return Files.exists(peak) ? read(peak.getFileName().toString()) : -1;
    }

    /** Anonymous memory charged to the cgroup now (what no reclaim can free: heap, stacks, malloc), in bytes. */
    long anonBytes() {
        try {
            for (String line : Files.readAllLines(dir.resolve("memory.stat"))) {
                String[] kv = line.split(" ");
                if (kv.length == 2 && kv[0].equals(v2 ? "anon" : "rss")) {
                    return Long.parseLong(kv[1]);
                }
            }
            throw new IllegalStateException("no anonymous memory figure in " + dir.resolve("memory.stat"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The first process in this cgroup whose command name is {@code comm} (e.g. {@code java}), or -1. */
    long process(String comm) {
        try {
            for (String pid : Files.readAllLines(dir.resolve("cgroup.procs"))) {
                try {
                    if (Files.readString(Path.of("/proc", pid.strip(), "comm")).strip().equals(comm)) {
                        return Long.parseLong(pid.strip());
                    }
                } catch (IOException gone) {
                    // ended between the two reads
                }
            }
            return -1;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** How many processes the kernel's OOM killer has killed in this cgroup. */
    long oomKills() {
        try {
            for (String line : Files.readAllLines(dir.resolve(v2 ? "memory.events" : "memory.oom_control"))) {
                if (line.startsWith("oom_kill ")) {
                    return Long.parseLong(line.substring("oom_kill ".length()).strip());
                }
            }
            return 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private long read(String file) {
        try {
            return Long.parseLong(Files.readString(dir.resolve(file)).strip());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Removes the cgroup; its processes must have ended (the kernel refuses otherwise, and it is left for the next run). */
    @Override
    public void close() {
        try {
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            System.err.println("memory cgroup " + dir + " left in place: " + e.getMessage());
        }
    }
}
