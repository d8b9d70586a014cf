package io.joulie.sim;

import io.joulie.planner.PodClass;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class WorkloadTest {

    private static WorkloadSpec spec(Map<String, String> overrides) {
        return SimConfig.of(overrides).workload();
    }

    @Test
    void generationIsSeededAndFollowsTheDistributions() {
        WorkloadSpec s = spec(Map.of("workload.jobs", "20000", "workload.ecoShare", "0.2"));
        List<JobSpec> jobs = Workload.generate(s);
        assertThat(Workload.generate(s)).as("same seed, same jobs").isEqualTo(jobs);
        assertThat(Workload.generate(spec(Map.of("workload.jobs", "20000", "workload.seed", "7")))).isNotEqualTo(jobs);
        assertThat(jobs).hasSize(20000);
        double meanGap = jobs.getLast().arrival() / jobs.size();
        assertThat(meanGap).as("exponential inter-arrival, mean 5 s").isCloseTo(5.0, within(0.2));
        assertThat(jobs).allSatisfy(j -> {
            assertThat(j.cores()).isBetween(1, 8);
            assertThat(j.work()).isBetween(600.0, 3600.0);
            assertThat(j.sensitivity()).isBetween(0.8, 1.0);
        });
        assertThat(jobs.stream().filter(j -> j.podClass() == PodClass.PERFORMANCE).count() / 20000.0).isCloseTo(0.30, within(0.015));
        assertThat(jobs.stream().filter(j -> j.podClass() == PodClass.ECO).count() / 20000.0).isCloseTo(0.20, within(0.015));
        assertThat(jobs.stream().mapToInt(JobSpec::cores).filter(c -> c == 8).count()).as("8 cores is reachable").isPositive();
    }

    @Test
    void memoryBoundJobsAndTheirDeclarationsFollowTheirShares() {
        WorkloadSpec s = spec(Map.of("workload.jobs", "20000", "workload.memoryBoundShare", "0.5",
                "workload.memoryBoundSensitivityMin", "0.1", "workload.memoryBoundSensitivityMax", "0.6",
                "workload.sensitivityMin", "0.85", "workload.declaredShare", "0.5"));
        List<JobSpec> jobs = Workload.generate(s);
        long memoryBound = jobs.stream().filter(j -> j.sensitivity() <= 0.6).count();
        assertThat(memoryBound / 20000.0).isCloseTo(0.5, within(0.015));
        assertThat(jobs).allSatisfy(j -> assertThat(j.sensitivity()).is(new org.assertj.core.api.Condition<>(
                v -> v <= 0.6 && v >= 0.1 || v >= 0.85, "in one of the two ranges")));
        List<JobSpec> declared = jobs.stream().filter(JobSpec::declaresEco).toList();
        assertThat(declared).allSatisfy(j -> {
            assertThat(j.sensitivity()).as("only memory-bound jobs declare").isLessThanOrEqualTo(0.6);
            assertThat(j.podClass()).as("only jobs without a profile constraint declare").isEqualTo(PodClass.UNCONSTRAINED);
        });
        // half the memory-bound jobs, of which 70 % are unconstrained
        assertThat(declared.size() / (double) memoryBound).isCloseTo(0.35, within(0.02));
        // without the mixture the seeded jobs are those of before: no extra draws
        assertThat(Workload.generate(spec(Map.of("workload.jobs", "50", "workload.declaredShare", "0.5"))))
                .isEqualTo(Workload.generate(spec(Map.of("workload.jobs", "50"))));
    }

    @Test
    void gpuJobsFollowTheirShareAndRangesAndLeaveCpuOnlyWorkloadsAsTheyWere() {
        WorkloadSpec s = spec(Map.of("workload.jobs", "20000", "workload.gpuShare", "0.25", "workload.gpusMin", "2",
                "workload.gpusMax", "4", "workload.gpuWorkMin", "100", "workload.gpuWorkMax", "200",
                "workload.gpuSensitivityMin", "0.4", "workload.gpuSensitivityMax", "0.5", "workload.memoryBoundShare", "0.5",
                "workload.declaredShare", "1"));
        List<JobSpec> jobs = Workload.generate(s);
        List<JobSpec> gpu = jobs.stream().filter(JobSpec::usesGpus).toList();
        assertThat(gpu.size() / 20000.0).isCloseTo(0.25, within(0.015));
        assertThat(gpu).allSatisfy(j -> {
            assertThat(j.gpus()).isBetween(2, 4);
            assertThat(j.work()).as("board-seconds").isBetween(100.0, 200.0);
            assertThat(j.sensitivity()).as("to the boards' clock").isBetween(0.4, 0.5);
            assertThat(j.cores()).as("host cores").isBetween(1, 8);
            assertThat(j.declaresEco()).as("GPU jobs declare nothing").isFalse();
        });
        assertThat(gpu).extracting(JobSpec::gpus).contains(2, 3, 4);
        assertThat(gpu).extracting(JobSpec::podClass).contains(PodClass.PERFORMANCE, PodClass.UNCONSTRAINED);
        assertThat(jobs).filteredOn(j -> !j.usesGpus()).allSatisfy(j -> assertThat(j.work()).isBetween(600.0, 3600.0));
        // without GPU jobs the seeded jobs are those of before: no extra draws
        assertThat(Workload.generate(spec(Map.of("workload.jobs", "50", "workload.gpusMax", "8"))))
                .isEqualTo(Workload.generate(spec(Map.of("workload.jobs", "50"))));
    }

    @Test
    void classesAreWhatTheOperatorsClassifierReadsFromTheNodeSelector() {
        assertThat(JobSpec.of(0, 0, 1, 1, 1, "performance").podClass()).isEqualTo(PodClass.PERFORMANCE);
        assertThat(JobSpec.of(0, 0, 1, 1, 1, "eco").podClass()).isEqualTo(PodClass.ECO);
        assertThat(JobSpec.of(0, 0, 1, 1, 1, null).podClass()).isEqualTo(PodClass.UNCONSTRAINED);
        assertThat(JobSpec.of(42, 0, 1, 1, 1, null).podName()).isEqualTo("sim/job-0000042");
    }

    @Test
    void diurnalModulationShiftsArrivalsTowardsMidday() {
        WorkloadSpec s = spec(Map.of("workload.jobs", "0", "workload.horizonSeconds", "86400",
                "workload.meanInterarrivalSeconds", "2", "workload.diurnalAmplitude", "0.8"));
        List<JobSpec> jobs = Workload.generate(s);
        long night = jobs.stream().filter(j -> j.arrival() < 21_600).count();       // 00:00-06:00
        long midday = jobs.stream().filter(j -> j.arrival() >= 32_400 && j.arrival() < 54_000).count(); // 09:00-15:00
        assertThat(midday).isGreaterThan(3 * night);
        assertThat(jobs.getLast().arrival()).isLessThanOrEqualTo(86_400);
        assertThat(jobs.size()).as("mean rate kept: about 43,200 arrivals").isBetween(41_000, 45_500);
    }

    @Test
    void traceReplacesTheGenerator(@TempDir Path dir) throws IOException {
        Path trace = dir.resolve("t.jsonl");
        Files.writeString(trace, """
                # a comment
                {"arrival": 30, "cores": 2, "work": 900, "sensitivity": 0.5, "class": "eco"}

                {"arrival": 10, "cores": 4, "work": 1200, "class": "performance"}
                {"arrival": 20, "cores": 1, "work": 60, "workloadClass": "eco"}
                {"arrival": 40, "cores": 4, "gpus": 2, "work": 7200, "sensitivity": 0.7}
                """);
        List<JobSpec> jobs = Workload.of(spec(Map.of("workload.trace", trace.toString())));
        assertThat(jobs).extracting(JobSpec::arrival).containsExactly(10.0, 20.0, 30.0, 40.0);
        assertThat(jobs).extracting(JobSpec::id).containsExactly(0, 1, 2, 3);
        assertThat(jobs).extracting(JobSpec::podClass)
                .containsExactly(PodClass.PERFORMANCE, PodClass.UNCONSTRAINED, PodClass.ECO, PodClass.UNCONSTRAINED);
        assertThat(jobs.getFirst().sensitivity()).as("default sensitivity").isEqualTo(1.0);
        assertThat(jobs.get(2).work()).isEqualTo(900.0);
        assertThat(jobs).extracting(JobSpec::declaresEco).containsExactly(false, true, false, false);
        assertThat(jobs).extracting(JobSpec::gpus).as("0 unless given").containsExactly(0, 0, 0, 2);
    }

    @Test
    void badTraceLinesAreNamed(@TempDir Path dir) throws IOException {
        Path trace = dir.resolve("bad.jsonl");
        Files.writeString(trace, "{\"arrival\": 1, \"cores\": 1, \"work\": 5}\n{\"arrival\": 2, \"cores\": 1.5, \"work\": 5}\n");
        assertThatThrownBy(() -> Workload.readTrace(trace)).hasMessageContaining("bad.jsonl:2").hasMessageContaining("whole cores");
        Files.writeString(trace, "{\"arrival\": 1, \"cores\": 1, \"work\": 5, \"class\": \"turbo\"}\n");
        assertThatThrownBy(() -> Workload.readTrace(trace)).hasMessageContaining("bad.jsonl:1").hasMessageContaining("turbo");
        Files.writeString(trace, "{\"arrival\": 1, \"cores\": 1, \"work\": 5, \"workloadClass\": \"fast\"}\n");
        assertThatThrownBy(() -> Workload.readTrace(trace)).hasMessageContaining("bad.jsonl:1").hasMessageContaining("workloadClass must be eco");
        Files.writeString(trace, "{\"arrival\": 1, \"cores\": 1, \"work\": 5, \"gpus\": 1.5}\n");
        assertThatThrownBy(() -> Workload.readTrace(trace)).hasMessageContaining("bad.jsonl:1").hasMessageContaining("whole gpus ≥ 0");
        Files.writeString(trace, "{\"arrival\": 1, \"cores\": 1, \"work\": 5, \"gpus\": -1}\n");
        assertThatThrownBy(() -> Workload.readTrace(trace)).hasMessageContaining("whole gpus ≥ 0");
        Files.writeString(trace, "{\"arrival\": 1, \n");
        assertThatThrownBy(() -> Workload.readTrace(trace)).hasMessageContaining("not a JSON object");
        Files.writeString(trace, "{\"cores\": 1, \"work\": 5}\n");
        assertThatThrownBy(() -> Workload.readTrace(trace)).hasMessageContaining("'arrival' must be a number");
        assertThatThrownBy(() -> Workload.readTrace(dir.resolve("missing.jsonl"))).hasMessageContaining("cannot read trace");
    }

    @Test
    void badParametersGetAClearMessage() {
        assertThatThrownBy(() -> SimConfig.of(Map.of("node.coress", "4"))).hasMessageContaining("unknown parameter 'node.coress'")
                .hasMessageContaining("node.cores");
        assertThatThrownBy(() -> SimConfig.of(Map.of("node.alpha", "abc"))).hasMessageContaining("node.alpha must be a number");
        assertThatThrownBy(() -> SimConfig.of(Map.of("workload.performanceShare", "0.9", "workload.ecoShare", "0.2")))
                .hasMessageContaining("within [0, 1]");
        assertThatThrownBy(() -> SimConfig.of(Map.of("planner.escalation", "panic"))).hasMessageContaining("hold, force or evict");
        assertThatThrownBy(() -> SimConfig.of(Map.of("workload.jobs", "0"))).hasMessageContaining("generate forever");
    }
}
