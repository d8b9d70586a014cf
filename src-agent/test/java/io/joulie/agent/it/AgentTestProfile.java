package io.joulie.agent.it;

import io.joulie.testkit.FakeHost;
import io.quarkus.test.junit.QuarkusTestProfile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.Map;

/**
 * The agent on a fake two-package Intel host in a temp dir, serving node {@link #NODE}, with 1 s periodic
 * reconciles. The tree is built once per JVM, before Quarkus starts (the agent probes it at start).
 */
public class AgentTestProfile implements QuarkusTestProfile {
    static final String NODE = "Worker_A";
    static final FakeHost HOST = buildHost();

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
                "agent.state-dir", HOST.stateDir().toString(),
                "agent.reconcile-interval", "1s");
    }
}
