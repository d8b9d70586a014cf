package io.joulie.operator.bench;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.informers.cache.ReducedStateItemStore;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.operator.cluster.PodFacts;
import io.joulie.operator.planner.PodClass;
import io.joulie.operator.planner.PodClassifier;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The Pod watch's store: what one delivered Pod costs to keep and index. {@code podFacts}: the operator's store (derive
 * node and class once, keep ~150 bytes); {@code reducedState}: fabric8's {@code ReducedStateItemStore} with the five
 * fields classification needs and the two indexers the operator used before (the Pod converted to a map on every put,
 * and the previous version rebuilt from one). Each operation puts 1,000 kwok-like Pods (containers, status,
 * conditions) into a fresh store. Run with {@code ./mvnw -Pbench -pl src-api,src verify -DskipTests
 * -Dbench=InformerStoreBenchmark} (docs/benchmarks.md).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
public class InformerStoreBenchmark {
    static final int PODS = 1_000;
    private final List<Pod> pods = new ArrayList<>(PODS);
    private final KubernetesSerialization serialization = new KubernetesSerialization();

    @Setup
    public void pods() {
        for (int i = 0; i < PODS; i++) {
            PodBuilder b = new PodBuilder().withNewMetadata().withNamespace("scale").withName("scale-" + (i / 20) + "-" + i)
                    .withUid(java.util.UUID.randomUUID().toString()).withResourceVersion(Integer.toString(1000 + i))
                    .addToLabels("app", "work").addToAnnotations("kwok.x-k8s.io/node", "fake").endMetadata()
                    .withNewSpec().withNodeName("scale-" + (i / 20)).addNewContainer().withName("work")
                    .withImage("registry.invalid/work:1").withNewResources().addToRequests("cpu",
                            new io.fabric8.kubernetes.api.model.Quantity("100m")).endResources().endContainer()
                    .withTerminationGracePeriodSeconds(0L).endSpec()
                    .withNewStatus().withPhase("Running").withHostIP("10.0.0.1").withPodIP("10.0.0." + (i % 250))
                    .addNewCondition().withType("Ready").withStatus("True").endCondition()
                    .addNewCondition().withType("PodScheduled").withStatus("True").endCondition()
                    .addNewContainerStatus().withName("work").withImage("registry.invalid/work:1").withReady(true)
                    .withRestartCount(0).endContainerStatus().endStatus();
            if (i % 200 == 0) {
                b.editSpec().withNodeSelector(Map.of(Joulie.POWER_PROFILE_LABEL, "performance")).endSpec();
            }
            pods.add(b.build());
        }
    }

    @Benchmark
    public Object podFacts() {
        var store = new PodFacts();
        for (Pod p : pods) {
            store.put(store.getKey(p), p);
        }
        return store;
    }

    @Benchmark
    public Object reducedState(Blackhole bh) {
        var store = new ReducedStateItemStore<>(ReducedStateItemStore.NAME_KEY_STATE, Pod.class, serialization,
                "metadata.deletionTimestamp", "spec.nodeName", "spec.nodeSelector", "spec.affinity", "status.phase");
        for (Pod p : pods) {
            Pod old = store.put(store.getKey(p), p);
            // the two indexers ran on the new version and on the previous one
            bh.consume(PodClassifier.isActive(p) && PodClassifier.classify(p) == PodClass.PERFORMANCE);
            if (old != null) {
                bh.consume(PodClassifier.isActive(old) && PodClassifier.classify(old) == PodClass.PERFORMANCE);
            }
        }
        return store;
    }
}
