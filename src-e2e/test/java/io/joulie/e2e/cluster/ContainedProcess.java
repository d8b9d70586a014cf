package io.joulie.e2e.cluster;

import io.joulie.harness.JavaApp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A measured process in a memory cgroup of its own, started by {@code launcher}: an application image run as its
 * container would run it ({@link #image}), or a binary started directly (then the launcher is the process).
 *
 * @param pid the measured process's id on this host (for an image: its JVM)
 */
record ContainedProcess(long pid, Process launcher, MemoryCgroup cgroup, Path log) implements AutoCloseable {

    /** What to give the image beyond its own configuration. */
    record Options(Map<String, String> env, Path copyIn, Path bind, String user) {
        Options {
            env = Map.copyOf(env);
        }
    }

    /**
     * Runs an application image without a container runtime ({@code hack/images/chroot-run.sh}): its own runtime,
     * entrypoint, JVM options, ahead-of-time cache and environment, in {@code cgroup} (whose limit the JVM reads), on the
     * host's network. Starts {@code image} in {@code cgroup} (which it then owns) with {@code options}; waits up to two minutes for its
     * JVM, logging to {@code log}.
     */
    static ContainedProcess image(Path image, MemoryCgroup cgroup, Options options, Path log) throws IOException {
        List<String> command = new ArrayList<>(List.of("bash", RealCluster.REPO.resolve("hack/images/chroot-run.sh").toString(),
                image.toString()));
        ProcessBuilder pb = new ProcessBuilder(cgroup.wrap(command));
        pb.environment().putAll(Map.of("HOST_NET", "1", "CGROUPS", "1"));
        pb.environment().put("RUN_ENV", options.env().entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .sorted().collect(Collectors.joining("\n")));
        if (options.copyIn() != null) {
            pb.environment().put("COPY_IN", options.copyIn().toString());
        }
        if (options.bind() != null) {
            pb.environment().put("BIND", options.bind().toString());
        }
        if (options.user() != null) {
            pb.environment().put("RUN_USER", options.user());
        }
        Process runner = pb.redirectErrorStream(true).redirectOutput(log.toFile()).start();
        // the layers are unpacked first (a runtime's pull and unpack, not the application's start)
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        long java;
        while ((java = cgroup.process("java")) < 0) {
            if (!runner.isAlive() || System.nanoTime() > deadline) {
                runner.descendants().forEach(ProcessHandle::destroyForcibly);
                runner.destroyForcibly();
                cgroup.close();
                throw new IllegalStateException("the image " + image.getFileName() + " did not start its JVM: " + JavaApp.tail(log, 20));
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting " + image, e);
            }
        }
        return new ContainedProcess(java, runner, cgroup, log);
    }

    boolean alive() {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /** The JVM's resident set size now and its peak (VmHWM), in KiB. */
    long[] rssKiB() {
        try {
            return JavaApp.rssKiB(pid);
        } catch (IOException e) {
            throw new UncheckedIOException("the process " + pid + " is gone", e);
        }
    }

    String tail(int lines) {
        return JavaApp.tail(log, lines);
    }

    /** SIGTERM to the measured process, as a kubelet stops a container; then whatever is left of its launcher; then the cgroup. */
    @Override
    public void close() {
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy);
        try {
            if (!launcher.waitFor(30, TimeUnit.SECONDS)) {
                launcher.descendants().forEach(ProcessHandle::destroyForcibly);
                launcher.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        cgroup.close();
    }
}
