package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.planner.ClusterContext;
import io.joulie.planner.NodePower;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** What the operator's watches keep: the performance-only index follows every change of a Pod, and Nodes keep of their status only the allocatable CPU. */
@EnableKubernetesMockClient(crud = true)
class InformerStoresTest {
    static KubernetesClient client;

    static Pod pod(String name, String node, String profile, String phase) {
        PodBuilder b = new PodBuilder().withNewMetadata().withNamespace("ns").withName(name).addToLabels("app", "x").endMetadata()
                .withNewSpec().withNodeName(node).addNewContainer().withName("c").withImage("i").endContainer().endSpec()
                .withNewStatus().withPhase(phase).endStatus();
        if (profile != null) {
            b.editSpec().withNodeSelector(Map.of(JoulieApi.POWER_PROFILE_LABEL, profile)).endSpec();
        }
        return b.build();
    }

    @Test
    void indexesActivePerformanceOnlyPodsByNodeThroughBindingCompletionAndDeletion() {
        PodFacts facts = new PodFacts();
        facts.put(pod("p", null, "performance", "Pending"), 1);
        assertThat(facts.onNode("")).containsExactly("ns/p");
        assertThat(facts.performanceCount()).isEqualTo(1);

        // bound: it moves from the unscheduled bucket to its node
        facts.put(pod("p", "n1", "performance", "Running"), 1);
        assertThat(facts.onNode("")).isEmpty();
        assertThat(facts.onNode("n1")).containsExactly("ns/p");
        assertThat(facts.performanceCount()).isEqualTo(1);

        // a second one on the same node, listed sorted; an unconstrained and an eco pod are not indexed
        facts.put(pod("a", "n1", "performance", "Running"), 1);
        facts.put(pod("u", "n1", null, "Running"), 1);
        facts.put(pod("e", "n1", "eco", "Running"), 1);
        assertThat(facts.onNode("n1")).containsExactly("ns/a", "ns/p");
        assertThat(facts.performanceCount()).isEqualTo(2);
        assertThat(facts.size()).isEqualTo(4);

        // completed: no longer demand; terminating: still demand, until it is gone (its grace period runs)
        facts.put(pod("p", "n1", "performance", "Succeeded"), 1);
        Pod terminating = pod("a", "n1", "performance", "Running");
        terminating.getMetadata().setDeletionTimestamp("2026-11-24T00:00:00Z");
        facts.put(terminating, 1);
        assertThat(facts.onNode("n1")).containsExactly("ns/a");
        facts.put(pod("a", "n1", "performance", "Failed"), 1);
        assertThat(facts.onNode("n1")).isEmpty();
        assertThat(facts.performanceCount()).isZero();

        // running again, then deleted
        facts.put(pod("a", "n1", "performance", "Running"), 1);
        assertThat(facts.onNode("n1")).containsExactly("ns/a");
        facts.remove(pod("a", "n1", "performance", "Running"));
        assertThat(facts.onNode("n1")).isEmpty();
        assertThat(facts.size()).isEqualTo(3);
    }

    @Test
    void aRelistDropsWhatItDidNotSee() {
        PodFacts facts = new PodFacts();
        facts.put(pod("gone", "n1", "performance", "Running"), 1);
        facts.put(pod("stays", "n1", "performance", "Running"), 1);
        facts.put(pod("other", "n2", null, "Running"), 1);
        // the second list sees only "stays"
        facts.put(pod("stays", "n1", "performance", "Running"), 2);
        facts.sweep(2);
        assertThat(facts.onNode("n1")).containsExactly("ns/stays");
        assertThat(facts.size()).isEqualTo(1);
    }

    /** Paged list, then the watch; after the watch ends the Pods are listed again and followed on. */
    @Test
    void listsInPagesThenFollowsTheWatchAndCarriesOnAfterItEnds() throws Exception {
        for (int i = 0; i < 30; i++) {
            client.resource(pod("w" + i, "n1", i % 3 == 0 ? "performance" : null, "Running")).create();
        }
        PodFacts facts = new PodFacts();
        try (PodWatch watch = new PodWatch(client, facts, 7)) {
            watch.start().get(30, TimeUnit.SECONDS);
            assertThat(watch.synced()).isTrue();
            assertThat(watch.watching()).isTrue();
            assertThat(facts.size()).isEqualTo(30);
            assertThat(facts.onNode("n1")).hasSize(10);

            client.resource(pod("new", "n2", "performance", "Running")).create();
            await().atMost(Duration.ofSeconds(10)).until(() -> facts.onNode("n2").size() == 1);
            client.pods().inNamespace("ns").withName("w0").delete();
            await().atMost(Duration.ofSeconds(10)).until(() -> facts.onNode("n1").size() == 9);

            watch.watchForTests().close();
            await().atMost(Duration.ofSeconds(10)).until(() -> watch.watching() && watch.watchForTests() != null);
            client.resource(pod("later", "n3", "performance", "Running")).create();
            await().atMost(Duration.ofSeconds(10)).until(() -> facts.onNode("n3").size() == 1);
            assertThat(facts.onNode("n1")).hasSize(9);
        }
    }

    @Test
    void nodesKeepOnlyTheirAllocatableCpuOfTheStatus() {
        TrimmedStore<Node> store = new TrimmedStore<>(InformerContextProvider::trimStatus);
        Node node = new NodeBuilder().withNewMetadata().withName("n1").endMetadata().withNewStatus().addNewCondition()
                .withType("Ready").withStatus("True").endCondition().addToAllocatable("cpu", new Quantity("56"))
                .addToAllocatable("memory", new Quantity("256Gi")).addToCapacity("cpu", new Quantity("64")).endStatus().build();
        store.put(store.getKey(node), node);
        assertThat(store.get("n1").getStatus().getAllocatable()).containsOnlyKeys("cpu").containsEntry("cpu", new Quantity("56"));
        assertThat(store.get("n1").getStatus().getConditions()).isEmpty();
        assertThat(store.get("n1").getStatus().getCapacity()).isEmpty();
        Node bare = new NodeBuilder().withNewMetadata().withName("n2").endMetadata().withNewStatus().addNewCondition()
                .withType("Ready").withStatus("True").endCondition().endStatus().build();
        store.put(store.getKey(bare), bare);
        assertThat(store.get("n2").getStatus()).as("no allocatable CPU: no status").isNull();
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

    @Test
    void theViewsNodesKeepOfTheirStatusOnlyTheAllocatableCpuAndTheGpusTheyAdvertise() {
        TrimmedStore<Node> store = new TrimmedStore<>(InformerContextProvider::trimStatus);
        Node gpuNode = new NodeBuilder().withNewMetadata().withName("gpu").endMetadata().withNewStatus().addNewCondition()
                .withType("Ready").withStatus("True").endCondition()
                .addToAllocatable("cpu", new Quantity("64")).addToAllocatable("nvidia.com/gpu", new Quantity("8"))
                .addToAllocatable("amd.com/gpu", new Quantity("2")).addToAllocatable("memory", new Quantity("1Ti"))
                .addToCapacity("nvidia.com/gpu", new Quantity("8")).endStatus().build();
        Node cpuNode = new NodeBuilder().withNewMetadata().withName("cpu").endMetadata().withNewStatus()
                .addToAllocatable("cpu", new Quantity("64")).endStatus().build();
        store.put(store.getKey(gpuNode), gpuNode);
        store.put(store.getKey(cpuNode), cpuNode);

        assertThat(store.get("gpu").getStatus().getAllocatable()).as("amd.com/gpu is not kept: not a board the agent caps")
                .containsOnlyKeys("cpu", "nvidia.com/gpu");
        assertThat(store.get("gpu").getStatus().getConditions()).isEmpty();
        assertThat(store.get("gpu").getStatus().getCapacity()).isEmpty();
        assertThat(InformerContextProvider.advertisedGpus(store.get("gpu"))).as("what eligibility and the GPU cap read").isEqualTo(8);
        assertThat(InformerContextProvider.allocatableCpu(store.get("gpu"))).as("what demand_sized_v1 sizes pools by").isEqualTo(64);
        assertThat(store.get("cpu").getStatus().getAllocatable()).containsOnlyKeys("cpu");
        assertThat(InformerContextProvider.advertisedGpus(store.get("cpu"))).isZero();
        assertThat(InformerContextProvider.allocatableCpu(store.get("cpu"))).isEqualTo(64);
    }

    /** Decision 201: AMD boards are not capped, so they do not make a node without CPU control a GPU node. */
    @Test
    void anAmdGpuNodeWithoutCpuControlIsLeftOutWhileAnNvidiaOneIsPlannedThroughItsBoards() {
        Map<String, String> noCpuKnob = Map.of(JoulieApi.FEATURE_RAPL_WRITABLE, "false", JoulieApi.FEATURE_CPUFREQ, "false");
        Node amd = new NodeBuilder().withNewMetadata().withName("mi300").endMetadata().withNewStatus()
                .addToAllocatable("cpu", new Quantity("192")).addToAllocatable("amd.com/gpu", new Quantity("8")).endStatus().build();
        Node nvidia = new NodeBuilder().withNewMetadata().withName("h100").endMetadata().withNewStatus()
                .addToAllocatable("cpu", new Quantity("192")).addToAllocatable("nvidia.com/gpu", new Quantity("8")).endStatus().build();
        assertThat(InformerContextProvider.advertisedGpus(amd)).isZero();
        ClusterContext.Exclusion excluded = InformerContextProvider.exclusion("mi300", noCpuKnob,
                NodePower.of(null, InformerContextProvider.advertisedGpus(amd)));
        assertThat(excluded).isNotNull();
        assertThat(excluded.reason()).isEqualTo("NoPowerControl");
        assertThat(excluded.message()).contains("advertises no GPU");
        assertThat(InformerContextProvider.exclusion("h100", noCpuKnob, NodePower.of(null, InformerContextProvider.advertisedGpus(nvidia))))
                .isNull();
    }
}
