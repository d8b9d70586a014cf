package io.joulie.harness;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Listening ports for processes started later (see {@link JavaApp#freePort()}): random ports between {@link #LOWEST}
 * and the start of the kernel's ephemeral range, each one bound once on the wildcard and on loopback to see that it is
 * free, none handed out twice by this JVM.
 */
final class FreePorts {
    /** Below this, ports belong to well-known services more often. */
    static final int LOWEST = 10_000;
    /** Where Linux starts its ephemeral range by default, when the range cannot be read. */
    static final int DEFAULT_EPHEMERAL_START = 32_768;
    private static final Path RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final Set<Integer> GIVEN = ConcurrentHashMap.newKeySet();

    private FreePorts() {
    }

    static int next() {
        int below = ephemeralStart(RANGE);
        if (below <= LOWEST + 100) {
            throw new IllegalStateException("the ephemeral port range starts at " + below + ": no room for listening ports below it");
        }
        return next(LOWEST, below);
    }

    /** A free port in [{@code lowest}, {@code below}) not handed out before. */
    static int next(int lowest, int below) {
        for (int attempt = 0; attempt < 1_000; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(lowest, below);
            if (!GIVEN.contains(port) && bindable(port) && GIVEN.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free port found in [" + lowest + ", " + below + ") in 1000 attempts");
    }

    /**
     * The first port of the kernel's ephemeral range ({@code ip_local_port_range}), or the Linux default. Read by lines:
     * {@code Files.readString} trusts the size procfs reports and returned the first character alone.
     */
    static int ephemeralStart(Path range) {
        try {
            String[] fields = Files.readAllLines(range).getFirst().trim().split("\\s+");
            return Integer.parseInt(fields[0]);
        } catch (IOException | RuntimeException e) {
            return DEFAULT_EPHEMERAL_START;
        }
    }

    private static boolean bindable(int port) {
        for (InetSocketAddress address : new InetSocketAddress[] {new InetSocketAddress(port),
                new InetSocketAddress(InetAddress.getLoopbackAddress(), port)}) {
            try (ServerSocket s = new ServerSocket()) {
                s.setReuseAddress(false);
                s.bind(address);
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }
}
