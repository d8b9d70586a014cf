package io.joulie.harness;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FreePortsTest {

    @Test
    void portsLieBelowTheEphemeralRangeAndAreNeverHandedOutTwice() {
        int below = FreePorts.ephemeralStart(Path.of("/proc/sys/net/ipv4/ip_local_port_range"));
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            int port = JavaApp.freePort();
            assertThat(port).isBetween(FreePorts.LOWEST, below - 1);
            assertThat(seen.add(port)).as("port %d handed out twice", port).isTrue();
        }
    }

    @Test
    void aPortWithAListenerIsNotHandedOut() throws IOException {
        try (ServerSocket taken = new ServerSocket(0)) {
            int port = taken.getLocalPort();
            assertThatThrownBy(() -> FreePorts.next(port, port + 1)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("no free port found in [" + port + ", " + (port + 1) + ")");
        }
    }

    @Test
    void theEphemeralRangeIsReadFromTheKernelOrDefaults(@TempDir Path dir) throws IOException {
        Path range = Files.writeString(dir.resolve("ip_local_port_range"), "40000\t60999\n");
        assertThat(FreePorts.ephemeralStart(range)).isEqualTo(40_000);
        assertThat(FreePorts.ephemeralStart(dir.resolve("missing"))).isEqualTo(FreePorts.DEFAULT_EPHEMERAL_START);
        Files.writeString(range, "garbage");
        assertThat(FreePorts.ephemeralStart(range)).isEqualTo(FreePorts.DEFAULT_EPHEMERAL_START);
    }
}
