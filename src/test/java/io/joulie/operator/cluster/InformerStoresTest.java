package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.joulie.api.v1alpha1.JoulieApi;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The informer stores keep what planning reads, and the performance-only index follows every change of a Pod. */
@EnableKubernetesMockClient(crud = true)
class InformerStoresTest {
    static KubernetesClient client;

    static Pod pod(String name, String rv, String node, String profile, String phase) {
        PodBuilder b = new PodBuilder().withNewMetadata().withNamespace("ns").withName(name).withResourceVersion(rv)
                .addToLabels("app", "x").endMetadata()
                .withNewSpec().withNodeName(node).addNewContainer().withName("c").withImage("i").endContainer().endSpec()
                .withNewStatus().withPhase(phase).endStatus();
        if (profile != null) {
            b.editSpec().withNodeSelector(Map.of(JoulieApi.POWER_PROFILE_LABEL, profile)).endSpec();
        }
        return b.build();
    }

    @Test
    void indexesActivePerformanceOnlyPodsByNodeThroughBindingCompletionAndDeletion() {
        PodFacts store = new PodFacts();
        Pod pending = pod("p", "1", null, "performance", "Pending");
        String key = store.getKey(pending);
        assertThat(key).isEqualTo("ns/p");

        assertThat(store.put(key, pending)).as("no earlier version").isNull();
        assertThat(store.onNode("")).containsExactly("ns/p");
        assertThat(store.performanceCount()).isEqualTo(1);

        // bound: it moves from the unscheduled bucket to its node; the informer gets the earlier version back
        Pod before = store.put(key, pod("p", "2", "n1", "performance", "Running"));
        assertThat(before.getMetadata().getResourceVersion()).isEqualTo("1");
        assertThat(before.getMetadata().getNamespace()).isEqualTo("ns");
        assertThat(before.getMetadata().getName()).isEqualTo("p");
        assertThat(store.onNode("")).isEmpty();
        assertThat(store.onNode("n1")).containsExactly("ns/p");
        assertThat(store.performanceCount()).isEqualTo(1);

        // a second one on the same node, listed sorted; an unconstrained and an eco pod are not indexed
        store.put("ns/a", pod("a", "3", "n1", "performance", "Running"));
        store.put("ns/u", pod("u", "4", "n1", null, "Running"));
        store.put("ns/e", pod("e", "5", "n1", "eco", "Running"));
        assertThat(store.onNode("n1")).containsExactly("ns/a", "ns/p");
        assertThat(store.performanceCount()).isEqualTo(2);
        assertThat(store.size()).isEqualTo(4);
        assertThat(store.keySet()).containsExactlyInAnyOrder("ns/p", "ns/a", "ns/u", "ns/e");

        // completed, and terminating: no longer demand
        store.put(key, pod("p", "6", "n1", "performance", "Succeeded"));
        Pod terminating = pod("a", "7", "n1", "performance", "Running");
        terminating.getMetadata().setDeletionTimestamp("2026-11-24T00:00:00Z");
        store.put("ns/a", terminating);
        assertThat(store.onNode("n1")).isEmpty();
        assertThat(store.performanceCount()).isZero();

        // back to Running (a new version after a relist) and removed
        store.put("ns/a", pod("a", "8", "n1", "performance", "Running"));
        assertThat(store.onNode("n1")).containsExactly("ns/a");
        Pod removed = store.remove("ns/a");
        assertThat(removed.getMetadata().getResourceVersion()).isEqualTo("8");
        assertThat(removed.getSpec().getNodeName()).isEqualTo("n1");
        assertThat(store.onNode("n1")).isEmpty();
        assertThat(store.remove("ns/a")).isNull();
        assertThat(store.get("ns/u").getMetadata().getResourceVersion()).isEqualTo("4");
        assertThat(store.values()).hasSize(3);
    }

    /**
     * While a paged initial list comes in, no event holds a Pod as delivered (containers, status and all): the events
     * come once the list is complete, with the Pods as the store keeps them. (Per-Pod events queued during the list held
     * 80,000 whole Pods at once in the scale benchmark.)
     */
    @Test
    void theInitialListIsDeliveredAsKeptNotAsListed() throws Exception {
        for (int i = 0; i < 30; i++) {
            client.resource(pod("p" + i, null, "n1", i % 3 == 0 ? "performance" : null, "Running")).create();
        }
        PodFacts store = new PodFacts();
        List<Pod> added = new java.util.concurrent.CopyOnWriteArrayList<>();
        SharedIndexInformer<Pod> informer = client.pods().inAnyNamespace().withLimit(7L).runnableInformer(0).itemStore(store);
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                added.add(pod);
            }

            @Override
            public void onUpdate(Pod oldPod, Pod newPod) {
            }

            @Override
            public void onDelete(Pod pod, boolean unknown) {
            }
        });
        try {
            informer.start().toCompletableFuture().get(30, java.util.concurrent.TimeUnit.SECONDS);
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> added.size() == 30);
            assertThat(added).allSatisfy(p -> {
                assertThat(p.getSpec().getContainers()).as("containers of %s", p.getMetadata().getName()).isEmpty();
                assertThat(p.getStatus()).isNull();
                assertThat(p.getSpec().getNodeName()).isEqualTo("n1");
            });
            assertThat(store.onNode("n1")).hasSize(10);
        } finally {
            informer.stop();
        }
    }

    @Test
    void trimmedStoreDropsWhatItIsToldAndKeepsTheRest() {
        TrimmedStore<Node> store = new TrimmedStore<>(n -> n.setStatus(null));
        Node node = new NodeBuilder().withNewMetadata().withName("n1").withUid("u1").addToLabels("a", "b").endMetadata()
                .withNewSpec().withUnschedulable(true).endSpec().withNewStatus().addNewCondition().withType("Ready")
                .withStatus("True").endCondition().endStatus().build();
        store.put(store.getKey(node), node);
        Node kept = store.get("n1");
        assertThat(kept.getStatus()).isNull();
        assertThat(kept.getMetadata().getLabels()).containsEntry("a", "b");
        assertThat(kept.getMetadata().getUid()).isEqualTo("u1");
        assertThat(kept.getSpec().getUnschedulable()).isTrue();
        assertThat(store.remove("n1")).isSameAs(kept);
        assertThat(store.size()).isZero();
    }
}
