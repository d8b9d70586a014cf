package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.informers.cache.ReducedStateItemStore;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.planner.ClusterContext;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DemandTrackingStoreTest {
    private final DemandTrackingStore store = new DemandTrackingStore(new ReducedStateItemStore<>(ReducedStateItemStore.NAME_KEY_STATE,
            Pod.class, new KubernetesSerialization(), "spec.nodeName", "spec.nodeSelector", "status.phase"));

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

    private void put(Pod p) {
        store.put(store.getKey(p), p);
    }

    @Test
    void sumsTheCpuOfActivePerformanceOnlyPodsAndOfPodsThatDeclareEco() {
        put(pod("perf", "performance", false, "2", "500m"));
        put(pod("declared", null, true, "4"));
        put(pod("other", null, false, "8"));
        put(pod("eco-only", "eco", false, "1"));
        put(pod("eco-only-declared", "eco", true, "2"));
        assertThat(store.demand()).as("an eco-only pod counts as eco-only, declared or not").isEqualTo(new ClusterContext.CpuDemand(2.5, 3, 4));
        assertThat(store.size()).as("every pod is stored").isEqualTo(5);
        assertThat(store.get("ns/perf").getSpec().getContainers()).as("the store keeps no container specs").isEmpty();

        // an update replaces the pod's count; a finished or deleted pod leaves it
        put(pod("perf", "performance", false, "3"));
        assertThat(store.demand().performanceCores()).isEqualTo(3);
        Pod done = pod("declared", null, true, "4");
        done.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder().withPhase("Succeeded").build());
        put(done);
        assertThat(store.demand().declaredEcoCores()).isZero();
        store.remove("ns/perf");
        store.remove("ns/eco-only");
        store.remove("ns/eco-only-declared");
        assertThat(store.demand()).isEqualTo(new ClusterContext.CpuDemand(0, 0, 0));
    }
}
