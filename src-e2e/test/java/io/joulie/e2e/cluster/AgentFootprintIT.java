package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.joulie.e2e.image.JoulieImage;
import io.joulie.harness.JavaApp;
import io.joulie.testkit.FakeHost;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The agent's footprint as its image runs it (issues 13 and 24): the agent's image (src-agent/target/joulie-agent-image.tar:
 * its runtime, entrypoint, JVM options, ahead-of-time cache and environment; {@link ContainedProcess#image}) in node
 * mode, as root as the DaemonSet runs it, on a fake host tree bound into it, inside a memory cgroup with the limit the
 * operator gives the agent DaemonSet (read from the DaemonSet it created), first idle and then under
 * churn: the plan of every managed node flips between performance and eco every few seconds, so the agent writes caps,
 * answers in the NodePowerProfiles and reads its energy counters all the while. It must never be OOM-killed, must
 * still follow the plan at the end, and its anonymous memory (what the kernel cannot reclaim: heap, metaspace, code,
 * stacks, malloc, the pages of the ahead-of-time cache the JVM rewrote) must leave a margin below the limit. The
 * process's RSS is reported too; it also counts file pages (the JDK's libraries, the cache's untouched pages), which
 * the kernel can drop and read again.
 *
 * <p>The suite churns for {@code e2e.footprint.seconds} (90 by default); the benchmark command of docs/benchmarks.md
 * sets 600 (10 minutes); {@code e2e.footprint.jvm} adds JVM options (through {@code JAVA_TOOL_OPTIONS}) to compare, and
 * {@code e2e.footprint.nmt} the JVM's own account. The figures go to {@code target/footprint-results.md}.
 */
@Order(13)
class AgentFootprintIT extends ClusterScenario {
    static final String NODE = RealCluster.MANAGED.get(4);
    /** The share of the limit the anonymous memory may reach: the rest is the margin (page cache, a GC's growth, a burst). */
    static final double MARGIN_SHARE = 0.8;
    static final Duration IDLE = Duration.ofSeconds(20);
    static final Duration FLIP = Duration.ofSeconds(3);

    static ContainedProcess agent;
    static MemoryCgroup cgroup;

    @AfterAll
    static void stop() {
        if (agent != null) {
            agent.close(); // and its cgroup
        } else if (cgroup != null) {
            cgroup.close();
        }
        if (cluster != null) {
            cluster.policy("null");
        }
        removeAgentReports();
    }

    /** The memory limit of the agent DaemonSet's container, as the operator wrote it. */
    static long daemonSetLimitBytes() {
        DaemonSet ds = await().atMost(Duration.ofSeconds(60)).until(
                () -> cluster.admin.apps().daemonSets().inNamespace(RealCluster.NAMESPACE).withName("joulie-agent").get(),
                d -> d != null);
        Quantity limit = ds.getSpec().getTemplate().getSpec().getContainers().getFirst().getResources().getLimits().get("memory");
        assertThat(limit).as("memory limit of the agent DaemonSet").isNotNull();
        return Quantity.getAmountInBytes(limit).longValueExact();
    }

    @Test
    void theAgentAsItsImageRunsItStaysWithinItsLimitIdleAndUnderChurnWithoutAnOomKill() throws Exception {
        long limit = daemonSetLimitBytes();
        Duration churn = Duration.ofSeconds(Long.getLong("e2e.footprint.seconds", 90));

        FakeHost host = FakeHost.intelNode(cluster.controlPlane.workDir().resolve("host-footprint-" + NODE), 2, 400);
        Path in = Files.createDirectories(cluster.controlPlane.workDir().resolve("agent-footprint-in"));
        Files.copy(cluster.nodeAgentKubeconfig(NODE), in.resolve("kubeconfig"), StandardCopyOption.REPLACE_EXISTING);
        Map<String, String> env = new HashMap<>(host.agentEnvironment());
        env.putAll(Map.of("NODE_NAME", NODE, "KUBECONFIG", "/tmp/in/kubeconfig",
                "QUARKUS_KUBERNETES_CLIENT_NAMESPACE", RealCluster.NAMESPACE, "AGENT_RECONCILE_INTERVAL", "1s"));
        // more JVM options to compare (-De2e.footprint.jvm), and where the memory goes (NMT, at a small cost of its own)
        String more = (System.getProperty("e2e.footprint.jvm", "")
                + (Boolean.getBoolean("e2e.footprint.nmt") ? " -XX:NativeMemoryTracking=summary" : "")).strip();
        if (!more.isEmpty()) {
            env.put("JAVA_TOOL_OPTIONS", more);
        }
        cgroup = MemoryCgroup.create("agent", limit);
        cluster.policy("{\"type\":\"static_partition\",\"staticHpFrac\":1.0}");
        agent = ContainedProcess.image(JoulieImage.AGENT.tarball(RealCluster.REPO), cgroup,
                new ContainedProcess.Options(env, in, host.root(), "0:0"),
                cluster.controlPlane.workDir().resolve("agent-footprint-" + NODE + ".log"));
        long jvmStarted = System.nanoTime();

        Sampler sampler = new Sampler();
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            sampler.sample();
            assertThat(host.limit(0)).as("performance cap applied").isEqualTo(host.expectedLimit(0, 2 * 400 * 100 / 100.0));
        });
        // polled every 500 ms: the first cap lands within this, counted from the JVM's start (the layers unpacked before)
        double firstCap = (System.nanoTime() - jvmStarted) / 1e9;
        long idleEnd = System.nanoTime() + IDLE.toNanos();
        while (System.nanoTime() < idleEnd) {
            host.addEnergy(50_000_000);
            sampler.sample();
            Thread.sleep(1000);
        }
        long idleRss = sampler.rssKiB;
        long idleAnon = sampler.anonBytes;

        boolean eco = false;
        long churnEnd = System.nanoTime() + churn.toNanos();
        long nextFlip = 0;
        int flips = 0;
        while (System.nanoTime() < churnEnd) {
            if (System.nanoTime() >= nextFlip) {
                eco = !eco;
                cluster.policy("{\"type\":\"static_partition\",\"staticHpFrac\":" + (eco ? "0.0" : "1.0") + "}");
                nextFlip = System.nanoTime() + FLIP.toNanos();
                flips++;
            }
            host.addEnergy(50_000_000);
            sampler.sample();
            Thread.sleep(1000);
        }
        // still at work: the last plan reaches the hardware
        double percent = eco ? 60 : 100;
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            sampler.sample();
            assertThat(host.limit(0)).as("cap of the last plan applied").isEqualTo(host.expectedLimit(0, 2 * 400 * percent / 100));
        });

        long peakRss = agent.rssKiB()[1];
        if (Boolean.getBoolean("e2e.footprint.nmt")) {
            Process jcmd = new ProcessBuilder(JavaApp.JAVA.resolveSibling("jcmd").toString(), Long.toString(agent.pid()),
                    "VM.native_memory", "summary").redirectErrorStream(true).redirectOutput(Path.of("target/footprint-nmt.txt").toFile()).start();
            jcmd.waitFor();
        }
        String row = String.format(Locale.ROOT, "| agent image (node mode)%s | %d MiB | %d s idle, %d s churn (%d plan flips) | "
                        + "≤ %.1f s | %d MiB | %d MiB | %d MiB | %d MiB | %s | %d |", more.isEmpty() ? "" : ", " + more, limit >> 20, IDLE.toSeconds(), churn.toSeconds(), flips,
                firstCap, idleAnon >> 20, sampler.peakAnonBytes >> 20, idleRss >> 10, peakRss >> 10,
                cgroup.peakBytes() < 0 ? "n/a" : (cgroup.peakBytes() >> 20) + " MiB", cgroup.oomKills());
        System.out.println(row);
        Files.writeString(Path.of("target/footprint-results.md"), String.join("\n",
                "| application | memory limit | run | JVM start to first cap | anonymous idle | anonymous peak | RSS idle | RSS peak "
                        + "| cgroup peak (with page cache) | OOM kills |",
                "|---|---|---|---|---|---|---|---|---|---|", row, ""));

        assertThat(cgroup.oomKills()).as("OOM kills in the agent's cgroup").isZero();
        assertThat(agent.alive()).as("agent alive after the churn").isTrue();
        assertThat(sampler.peakAnonBytes).as("peak anonymous memory of the agent's cgroup (%d MiB) within %.0f %% of its %d MiB limit",
                sampler.peakAnonBytes >> 20, MARGIN_SHARE * 100, limit >> 20).isLessThan((long) (limit * MARGIN_SHARE));
    }

    /** Follows the agent while it runs: alive, its RSS now, and no OOM kill so far. */
    static final class Sampler {
        long rssKiB;
        long anonBytes;
        long peakAnonBytes;

        void sample() throws Exception {
            assertThat(cgroup.oomKills()).as("OOM kills in the agent's cgroup").isZero();
            assertThat(agent.alive()).as("agent alive: %s", agent.alive() ? "-" : agent.tail(20)).isTrue();
            rssKiB = agent.rssKiB()[0];
            anonBytes = cgroup.anonBytes();
            peakAnonBytes = Math.max(peakAnonBytes, anonBytes);
        }
    }
}
