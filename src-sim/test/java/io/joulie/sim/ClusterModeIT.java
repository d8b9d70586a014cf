package io.joulie.sim;

import io.joulie.operator.planner.PodClass;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Cluster mode end to end: the packaged operator and agent (pool mode) against the embedded API server, the
 * twin's HTTP endpoints and Pods, time-compressed 60x.
 */
class ClusterModeIT {
    static final Path REPO = Path.of(System.getProperty("repository.root", "."));

    @Test
    void theRealOperatorAndAgentDriveTheTwinWithoutViolations(@TempDir Path logs) throws Exception {
        // 3 nodes, 24 short jobs; 3 performance pods per performance node, so the queue moves queue_aware_v1
        SimConfig config = SimConfig.of(Map.of("cluster.nodes", "3", "workload.jobs", "24", "workload.workMax", "900",
                "planner.queueHpMin", "1", "planner.queueHpMax", "3", "planner.queuePerfPerHpNode", "3"));
        List<JobSpec> jobs = Workload.of(config.workload());
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        RunResult r;
        Map<String, Double> caps;
        try (ClusterMode cm = new ClusterMode(config, Simulation.nodeNames(3),
                new ClusterMode.Options(REPO, Baseline.C, 60, logs, new PrintStream(printed, true, StandardCharsets.UTF_8)))) {
            Simulation sim = new Simulation(config, jobs, Baseline.C, cm);
            cm.start(Duration.ofSeconds(150));
            caps = cm.caps();
            r = sim.run();
        }
        String decisions = printed.toString(StandardCharsets.UTF_8);
        // round(3 × 0.7) = 2 performance nodes with an empty queue: the operator's first plan, applied by the agent
        assertThat(caps.values()).containsExactlyInAnyOrder(500.0, 500.0, 260.0);
        assertThat(decisions).contains("node-0001  new -> ActiveEco (cap 260 W): selected for eco by queue-aware-v1");
        assertThat(r.jobsCompleted()).isEqualTo(24);
        assertThat(r.violationSeconds()).isZero();
        assertThat(r.completionTimes().get(PodClass.PERFORMANCE)).isNotEmpty();
        assertThat(r.series()).anySatisfy(s -> assertThat(s.ecoNodes()).isPositive());
        assertThat(r.energyKWh()).isPositive();
    }
}
