package io.joulie.planner.bench;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.planner.ClusterContext;
import io.joulie.planner.ManagedNode;
import io.joulie.planner.Planner;
import io.joulie.planner.PlannerSettings;
import io.joulie.planner.PodClass;
import io.joulie.planner.PodClassifier;
import io.joulie.planner.PolicyRules;
import io.joulie.planner.PolicyType;
import io.joulie.planner.ScheduleWindow;
import io.joulie.planner.Telemetry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * The pure planning core at scale: one tick's plan (policy + guard for every node) on a cluster of
 * 10,000 nodes carrying 200,000 pods, and the classification of those 200,000 pods (the work the pod
 * watch does as events arrive). Run with {@code ./mvnw -Pbench -pl src-api,src-planner verify -DskipTests}
 * (docs/benchmarks.md).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
public class PlannerBenchmark {
    @Param({"10000"})
    int nodes;
    @Param({"200000"})
    int pods;

    ClusterContext context;
    Planner staticPartition;
    Planner queueAware;
    ClusterContext withTelemetry;
    Planner withRules;
    List<Pod> podObjects;

    @Setup(Level.Trial)
    public void setUp() {
        Random random = new Random(42);
        Instant now = Instant.parse("2026-11-21T12:00:00Z");
        PowerState[] states = PowerState.values();
        podObjects = new ArrayList<>(pods);
        List<List<String>> perfByNode = new ArrayList<>(nodes);
        for (int n = 0; n < nodes; n++) {
            perfByNode.add(new ArrayList<>());
        }
        long clusterPerf = 0;
        for (int p = 0; p < pods; p++) {
            int node = random.nextInt(nodes);
            String profile = switch (random.nextInt(10)) {
                case 0, 1, 2 -> "performance";
                case 3, 4 -> "eco";
                default -> null;
            };
            PodBuilder b = new PodBuilder().withNewMetadata().withNamespace("ns-" + (p % 50)).withName("pod-" + p).endMetadata()
                    .withNewSpec().withNodeName("node-" + node).endSpec().withNewStatus().withPhase("Running").endStatus();
            if (profile != null) {
                b.editSpec().withNodeSelector(Map.of(JoulieApi.POWER_PROFILE_LABEL, profile)).endSpec();
            }
            Pod pod = b.build();
            podObjects.add(pod);
            if (PodClassifier.classify(pod) == PodClass.PERFORMANCE) {
                perfByNode.get(node).add(pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName());
                clusterPerf++;
            }
        }
        List<ManagedNode> managed = new ArrayList<>(nodes);
        for (int n = 0; n < nodes; n++) {
            List<String> perf = perfByNode.get(n);
            perf.sort(null);
            managed.add(new ManagedNode("node-%05d".formatted(n), Map.of("joulie.io/managed", "true",
                    PolicyRules.DEFAULT_RACK_LABEL, "rack-" + n / 40), n % 97 == 0,
                    states[random.nextInt(states.length)], now.minusSeconds(random.nextInt(7200)), perf));
        }
        context = new ClusterContext(now, managed, clusterPerf);
        PlannerSettings defaults = PlannerSettings.defaults();
        staticPartition = new Planner(defaults);
        queueAware = new Planner(defaults.withPolicy(PolicyType.QUEUE_AWARE_V1));

        // Every rule at once, with a power and temperature sample for every node.
        Map<String, Telemetry.NodeSamples> samples = new HashMap<>();
        for (ManagedNode m : managed) {
            samples.put(m.name(), new Telemetry.NodeSamples(
                    Optional.of(new Telemetry.Sample(100 + random.nextInt(400), Duration.ofSeconds(5))),
                    Optional.of(new Telemetry.Sample(40 + random.nextInt(50), Duration.ofSeconds(5)))));
        }
        withTelemetry = new ClusterContext(now, managed, clusterPerf, List.of(), List.of(),
                Telemetry.available(samples, OptionalDouble.empty(), OptionalDouble.empty()));
        ScheduleWindow always = new ScheduleWindow("always", EnumSet.allOf(DayOfWeek.class), LocalTime.MIDNIGHT,
                LocalTime.MIDNIGHT, ZoneId.of("Europe/Berlin"), OptionalDouble.of(0.8), OptionalInt.empty(), OptionalInt.empty());
        withRules = new Planner(defaults.withPolicy(PolicyType.QUEUE_AWARE_V1), new PolicyRules(List.of(always),
                OptionalDouble.of(2_000_000), new PolicyRules.Hotspots(80, 5), PolicyRules.DEFAULT_RACK_LABEL));
    }

    /** queue_aware_v1 with a schedule window, a power budget and hotspots over measured telemetry. */
    @Benchmark
    public Planner.TickPlan planWithRules() {
        return withRules.plan(withTelemetry);
    }

    @Benchmark
    public Planner.TickPlan planStaticPartition() {
        return staticPartition.plan(context);
    }

    @Benchmark
    public Planner.TickPlan planQueueAware() {
        return queueAware.plan(context);
    }

    @Benchmark
    public int classifyAllPods() {
        int performance = 0;
        for (Pod pod : podObjects) {
            if (PodClassifier.isActive(pod) && PodClassifier.classify(pod) == PodClass.PERFORMANCE) {
                performance++;
            }
        }
        return performance;
    }
}
