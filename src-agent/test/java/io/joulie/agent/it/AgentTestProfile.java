package io.joulie.agent.it;

import io.joulie.testkit.FakeHost;
import io.joulie.testkit.FakeNvml;
import io.quarkus.test.junit.QuarkusTestProfile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;

/**
 * The agent on a fake two-package Intel host in a temp dir with an H100 and an L40S behind the fake NVML, serving node
 * {@link #NODE}, with 1 s periodic reconciles. The tree and the library are made once per JVM, before Quarkus starts
 * (the agent probes them at start).
 */
public class AgentTestProfile implements QuarkusTestProfile {
    static final String NODE = "Worker_A";
    static final FakeHost HOST = buildHost();
    static final FakeNvml NVML = FakeNvml.install(HOST.root().resolve("nvml"), List.of(FakeNvml.Board.h100(), FakeNvml.Board.l40s()));

    private static FakeHost buildHost() {
        try {
            FakeHost host = FakeHost.intelNode(Files.createTempDirectory("joulie-agent-host"), 2, 250);
            host.cpufreqPolicy(0, 800_000, 3_500_000, 3_500_000);
            host.cpufreqPolicy(1, 800_000, 3_500_000, 3_500_000);
            host.cgroupV2();
            return host;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("agent.node-name", NODE,
                "agent.sysfs-root", HOST.sys().toString(),
                "agent.proc-root", HOST.proc().toString(),
                "agent.dev-root", HOST.dev().toString(),
                "agent.nvml-library", NVML.library().toString(),
                "agent.state-dir", HOST.stateDir().toString(),
                "agent.reconcile-interval", "1s");
    }
}
