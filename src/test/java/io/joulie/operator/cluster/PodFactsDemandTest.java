package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.planner.ClusterContext;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The CPU demands demand_sized_v1 sizes pools for, summed by {@link PodFacts} as Pods come and go. */
class PodFactsDemandTest {
    private final PodFacts facts = new PodFacts();

    private static Pod pod(String name, String profile, boolean declaresEco, String... cpu) {
        PodBuilder b = new PodBuilder().withNewMetadata().withNamespace("ns").withName(name).endMetadata().withNewSpec().endSpec();
        if (profile != null) {
            b.editSpec().addToNodeSelector(JoulieApi.POWER_PROFILE_LABEL, profile).endSpec();
        }
        if (declaresEco) {
            b.editMetadata().addToAnnotations(JoulieApi.WORKLOAD_CLASS_ANNOTATION, "eco").endMetadata();
        }
        for (int i = 0; i < cpu.length; i++) {
            b.editSpec().addNewContainer().withName("c" + i).withNewResources().addToRequests("cpu", new Quantity(cpu[i]))
                    .endResources().endContainer().endSpec();
        }
        return b.build();
    }

    /** The pod with a container asking for GPU boards of this resource by limit (as extended resources are asked for). */
    private static Pod withGpus(Pod pod, String resource, String boards) {
        return new PodBuilder(pod).editSpec().addNewContainer().withName("gpu").withNewResources()
                .addToLimits(resource, new Quantity(boards)).endResources().endContainer().endSpec().build();
    }

    private static Pod on(Pod pod, String node) {
        return new PodBuilder(pod).editSpec().withNodeName(node).endSpec().build();
    }

    /** A node's load for the energy estimate: every active Pod bound there, whatever its class (decision 205). */
    @Test
    void sumsTheCpuEveryActivePodRequestsByNode() {
        facts.put(on(pod("perf", "performance", false, "2", "500m"), "n1"), 1);
        facts.put(on(pod("other", null, false, "8"), "n1"), 1);
        facts.put(on(pod("elsewhere", null, false, "1"), "n2"), 1);
        facts.put(pod("pending", null, false, "4"), 1);
        assertThat(facts.requestedCores("n1")).isEqualTo(10.5);
        assertThat(facts.requestedCores("n2")).isEqualTo(1);
        assertThat(facts.requestedCores("")).as("unscheduled pods load no node").isZero();

        Pod done = on(pod("other", null, false, "8"), "n1");
        done.setStatus(new PodStatusBuilder().withPhase("Failed").build());
        facts.put(done, 1);
        assertThat(facts.requestedCores("n1")).isEqualTo(2.5);
        facts.put(on(pod("perf", "performance", false, "2", "500m"), "n2"), 1); // rebound elsewhere (a new incarnation)
        assertThat(facts.requestedCores("n1")).isZero();
        assertThat(facts.requestedCores("n2")).isEqualTo(3.5);
        facts.sweep(2);
        assertThat(facts.requestedCores("n2")).isZero();
    }

    @Test
    void sumsTheGpuBoardsOfTheSameClasses() {
        facts.put(withGpus(pod("train", "performance", false, "4"), "nvidia.com/gpu", "4"), 1);
        facts.put(withGpus(withGpus(pod("infer", null, true, "1"), "nvidia.com/gpu", "1"), "amd.com/gpu", "2"), 1);
        facts.put(withGpus(pod("batch", "eco", false, "1"), "nvidia.com/gpu", "8"), 1);
        facts.put(withGpus(pod("undeclared", null, false, "1"), "nvidia.com/gpu", "2"), 1);
        // a request without a limit counts too
        facts.put(new PodBuilder(pod("requested", "performance", false)).editSpec().addNewContainer().withName("g").withNewResources()
                .addToRequests("nvidia.com/gpu", new Quantity("1")).endResources().endContainer().endSpec().build(), 1);
        assertThat(facts.gpuDemand()).as("undeclared unconstrained pods count in no demand; amd.com/gpu boards in none (decision 201)")
                .isEqualTo(new ClusterContext.GpuDemand(5, 8, 1));
        assertThat(facts.demand()).isEqualTo(new ClusterContext.CpuDemand(4, 1, 1));
        facts.remove(withGpus(pod("train", "performance", false, "4"), "nvidia.com/gpu", "4"));
        assertThat(facts.gpuDemand()).isEqualTo(new ClusterContext.GpuDemand(1, 8, 1));
        assertThat(facts.gpuDemand().known()).isTrue();
    }

    @Test
    void sumsTheCpuOfActivePerformanceOnlyPodsAndOfPodsThatDeclareEco() {
        facts.put(pod("perf", "performance", false, "2", "500m"), 1);
        facts.put(pod("declared", null, true, "4"), 1);
        facts.put(pod("other", null, false, "8"), 1);
        facts.put(pod("eco-only", "eco", false, "1"), 1);
        facts.put(pod("eco-only-declared", "eco", true, "2"), 1);
        assertThat(facts.demand()).as("an eco-only pod counts as eco-only, declared or not").isEqualTo(new ClusterContext.CpuDemand(2.5, 3, 4));
        assertThat(facts.size()).as("every pod is kept").isEqualTo(5);

        // an update replaces the pod's count; a finished or deleted pod leaves it
        facts.put(pod("perf", "performance", false, "3"), 1);
        assertThat(facts.demand().performanceCores()).isEqualTo(3);
        Pod done = pod("declared", null, true, "4");
        done.setStatus(new PodStatusBuilder().withPhase("Succeeded").build());
        facts.put(done, 1);
        assertThat(facts.demand().declaredEcoCores()).isZero();
        facts.remove(pod("perf", "performance", false, "3"));
        facts.remove(pod("eco-only", "eco", false, "1"));
        assertThat(facts.demand()).isEqualTo(new ClusterContext.CpuDemand(0, 2, 0));

        // a relist that no longer sees a pod drops its cores too
        facts.put(pod("other", null, false, "8"), 2);
        facts.sweep(2);
        assertThat(facts.size()).isEqualTo(1);
        assertThat(facts.demand()).isEqualTo(new ClusterContext.CpuDemand(0, 0, 0));
    }

    @Test
    void theIndexByNodeIsAReadOnlyViewNotACopyOfTheActivePerformanceOnlyPods() {
        Pod perf = pod("perf", "performance", false, "1");
        perf.getSpec().setNodeName("n1");
        Pod other = pod("other", null, false, "1");
        other.getSpec().setNodeName("n1");
        java.util.Set<String> onN1 = facts.performanceKeys("n1");
        assertThat(onN1).isEmpty();
        facts.put(perf, 1);
        facts.put(other, 1);
        java.util.Set<String> view = facts.performanceKeys("n1");
        assertThat(view).containsExactly("ns/perf");
        assertThat(facts.onNode("n1")).containsExactly("ns/perf");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> view.add("ns/intruder"))
                .isInstanceOf(UnsupportedOperationException.class);
        Pod second = pod("second", "performance", false, "1");
        second.getSpec().setNodeName("n1");
        facts.put(second, 1);
        assertThat(view).as("the same view shows the change").containsExactlyInAnyOrder("ns/perf", "ns/second");
        facts.remove(perf);
        facts.remove(second);
        assertThat(facts.performanceKeys("n1")).isEmpty();
        assertThat(facts.performanceKeys("n2")).isEmpty();
    }
}
