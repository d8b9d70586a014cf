package io.joulie.agent.it;

import io.joulie.agent.host.FakeHost;
import io.quarkus.test.junit.QuarkusTestProfile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The agent on a fake two-package Intel host in a temp dir, serving node {@link #NODE}, with 1 s periodic
 * reconciles. The tree is built once per JVM, before Quarkus starts (the agent probes it at start).
 */
public class AgentTestProfile implements QuarkusTestProfile {
    static final String NODE = "Worker_A";
    static final Path ROOT = buildHost();

    private static Path buildHost() {
        try {
            Path root = Files.createTempDirectory("joulie-agent-host");
            FakeHost host = new FakeHost(root);
            host.intelPackage(0);
            host.intelPackage(1);
            host.cpufreqPolicy(0, 800_000, 3_500_000, 3_500_000);
            host.cpufreqPolicy(1, 800_000, 3_500_000, 3_500_000);
            host.cpuinfo("GenuineIntel", "Intel(R) Xeon(R) Test CPU");
            host.cgroupV2();
            return root;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path limitFile(int pkg) {
        return FakeHost.limitFile(new FakeHost(ROOT).powercap().resolve("intel-rapl:" + pkg));
    }

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("agent.node-name", NODE,
                "agent.sysfs-root", ROOT.resolve("sys").toString(),
                "agent.proc-root", ROOT.resolve("proc").toString(),
                "agent.dev-root", ROOT.resolve("dev").toString(),
                "agent.reconcile-interval", "1s");
    }
}
