package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.planner.EcoPlacement;
import io.joulie.planner.EfficientLoadScore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Placement on the real kube-scheduler (issue 22 item 3, decision 210): a second kube-scheduler runs the profile
 * Joulie ships ({@code examples/scheduler/kube-scheduler-config.yaml}, as it is, under another scheduler name), and
 * Pods that name it are created one at a time on four kwok nodes of their own (tainted, and selected by label, so that
 * nothing else shares them), two labelled performance and two eco.
 * Each Pod must land on a node that kube-scheduler's scores, as {@link EfficientLoadScore} and the eco preference of
 * {@link EcoPlacement} compute them (NodeAffinity's plugin weight 2 × 100 for a preferred eco node, plus
 * NodeResourcesFit's 0–100), put first: the twin's rule, checked against the real scheduler. The nodes end as the rule
 * says: filled to the target before another is opened, eco nodes first for eco-tolerant Pods.
 */
@Order(4)
class PlacementIT extends ClusterScenario {
    static final String NS = "e2e-placement";
    static final String SCHEDULER = "joulie-e2e-efficient-load";
    static final String TAINT = "e2e.joulie.io/placement";
    static final int CORES = 10;
    /** Node name → its joulie.io/power-profile label. */
    static final Map<String, String> NODES = new LinkedHashMap<>(Map.of("place-0", "performance", "place-1", "performance",
            "place-2", "eco", "place-3", "eco"));
    static Path schedulerLog;

    @BeforeAll
    static void start() throws Exception {
        cluster.namespace(NS);
        // the shipped profile, as it is, under its own scheduler name, with the control plane's credentials
        @SuppressWarnings("unchecked")
        Map<String, Object> config = Serialization.unmarshal(
                Files.readString(cluster.repo().resolve("examples/scheduler/kube-scheduler-config.yaml")), Map.class);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> profiles = (List<Map<String, Object>>) config.get("profiles");
        assertThat(profiles).hasSize(1);
        profiles.get(0).put("schedulerName", SCHEDULER);
        config.put("clientConnection", Map.of("kubeconfig", cluster.controlPlane.schedulerKubeconfig().toString()));
        config.put("leaderElection", Map.of("leaderElect", false));
        Path file = cluster.controlPlane.workDir().resolve("placement-scheduler.yaml");
        Files.writeString(file, Serialization.asYaml(config));
        schedulerLog = cluster.controlPlane.startScheduler("kube-scheduler-placement", file);

        Map<String, Quantity> capacity = Map.of("cpu", new Quantity(String.valueOf(CORES)), "memory", new Quantity("64Gi"),
                "pods", new Quantity("110"));
        NODES.forEach((name, profile) -> cluster.admin.nodes().resource(new NodeBuilder().withNewMetadata().withName(name)
                .addToLabels("kubernetes.io/hostname", name).addToLabels("type", "kwok")
                .addToLabels(JoulieApi.POWER_PROFILE_LABEL, profile).addToLabels(TAINT, "true")
                .addToAnnotations(ControlPlane.KWOK_ANNOTATION, "fake").endMetadata()
                .withNewSpec().addNewTaint().withKey(TAINT).withEffect("NoSchedule").endTaint().endSpec()
                .withNewStatus().addToCapacity(capacity).addToAllocatable(capacity).endStatus().build()).create());
        await().atMost(Duration.ofSeconds(60)).until(() -> NODES.keySet().stream().allMatch(PlacementIT::ready));
    }

    @AfterAll
    static void cleanUp() {
        if (cluster != null) {
            cluster.kubectl(null, "delete", "namespace", NS, "--wait=false");
            NODES.keySet().forEach(n -> cluster.kubectl(null, "delete", "node", n, "--ignore-not-found", "--wait=false"));
        }
    }

    @AfterEach
    void removePods() {
        cluster.admin.pods().inNamespace(NS).withGracePeriod(0).delete();
        await().atMost(Duration.ofSeconds(60)).until(() -> cluster.admin.pods().inNamespace(NS).list().getItems().isEmpty());
    }

    static boolean ready(String node) {
        Node n = cluster.admin.nodes().withName(node).get();
        return n != null && n.getStatus() != null && n.getStatus().getConditions() != null && n.getStatus().getConditions()
                .stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    static Pod pod(String name, int cpu, boolean ecoTolerant) {
        return EcoPlacement.apply(bare(name, cpu, ecoTolerant));
    }

    /** The Pod as a user writes it: the eco preference, if any, comes from the operator's webhook. */
    static Pod bare(String name, int cpu, boolean ecoTolerant) {
        PodBuilder b = new PodBuilder().withNewMetadata().withName(name).withNamespace(NS).endMetadata()
                .withNewSpec().withSchedulerName(SCHEDULER).withNodeSelector(Map.of(TAINT, "true")).addNewToleration().withKey(TAINT).withOperator("Exists")
                .withEffect("NoSchedule").endToleration().addNewContainer().withName("work").withImage("registry.invalid/work:1")
                .withNewResources().addToRequests("cpu", new Quantity(String.valueOf(cpu))).endResources().endContainer()
                .withTerminationGracePeriodSeconds(0L).endSpec();
        if (ecoTolerant) {
            b.editMetadata().addToAnnotations(JoulieApi.WORKLOAD_CLASS_ANNOTATION, JoulieApi.WORKLOAD_CLASS_ECO).endMetadata();
        }
        return b.build();
    }

    /**
     * Creates the Pods one after the other, each after the last one is bound, and checks each lands on a node the
     * scores put first; returns the cores requested per node at the end.
     */
    static Map<String, Integer> place(List<Pod> pods) {
        return place(pods, false);
    }

    /**
     * {@link #place(List)}; with {@code webhook}, the preference the prediction uses is the one of the Pod as created
     * (the API server's answer, after the webhook), not of the Pod as sent.
     */
    static Map<String, Integer> place(List<Pod> pods, boolean webhook) {
        Map<String, Integer> requested = new TreeMap<>();
        NODES.keySet().forEach(n -> requested.put(n, 0));
        for (Pod p : pods) {
            int cpu = p.getSpec().getContainers().get(0).getResources().getRequests().get("cpu").getNumericalAmount().intValue();
            Pod created = cluster.admin.resource(p).create();
            boolean prefersEco = EcoPlacement.prefersEco((webhook ? created : p).getSpec());
            List<String> best = best(requested, cpu, prefersEco);
            String name = p.getMetadata().getName();
            String[] bound = new String[1];
            try {
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> {
                    Pod live = cluster.admin.pods().inNamespace(NS).withName(name).get();
                    bound[0] = live == null || live.getSpec() == null ? null : live.getSpec().getNodeName();
                    return bound[0] != null;
                });
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                throw new AssertionError(name + " was not bound in 30 s; the placement scheduler's log ends: "
                        + ControlPlane.tail(schedulerLog), e);
            }
            assertThat(best).as("%s (%d cores, eco-tolerant %s) with %s requested: kube-scheduler's best nodes", name, cpu,
                    prefersEco, requested).contains(bound[0]);
            requested.merge(bound[0], cpu, Integer::sum);
        }
        return requested;
    }

    /** The fitting nodes with the highest total score, as kube-scheduler adds NodeAffinity and NodeResourcesFit. */
    static List<String> best(Map<String, Integer> requested, int cpu, boolean prefersEco) {
        long top = Long.MIN_VALUE;
        List<String> best = new ArrayList<>();
        for (Map.Entry<String, String> n : NODES.entrySet()) {
            int used = requested.get(n.getKey());
            if (used + cpu > CORES) {
                continue;
            }
            long score = EfficientLoadScore.score(used * 1000L, cpu * 1000L, CORES * 1000L)
                    + (prefersEco && "eco".equals(n.getValue()) ? 2 * 100 : 0);
            if (score > top) {
                top = score;
                best.clear();
            }
            if (score == top) {
                best.add(n.getKey());
            }
        }
        return best;
    }

    static List<Pod> pods(String prefix, int count, int cpu, boolean ecoTolerant) {
        List<Pod> pods = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            pods.add(pod(prefix + "-" + i, cpu, ecoTolerant));
        }
        return pods;
    }

    @Test
    void nodesFillToTheTargetBeforeAnotherIsOpened() {
        Map<String, Integer> requested = place(pods("any", 12, 1, false));

        // 60 % of 10 cores: two nodes at 6, two empty (the default score would put 3 on each)
        assertThat(requested.values()).containsExactlyInAnyOrder(6, 6, 0, 0);
    }

    @Test
    void pastTheTargetTheEmptiestNodeIsTaken() {
        Map<String, Integer> requested = place(pods("big", 5, 4, false));

        // 4 cores is 40 %, a second Pod would take a node to 80 %: each node gets one, the fifth goes to one of them
        assertThat(requested.values()).containsExactlyInAnyOrder(8, 4, 4, 4);
    }

    @Test
    void theOperatorsWebhookGivesEcoTolerantPodsTheEcoPreference() {
        MutatingWebhookConfiguration registered = await().atMost(Duration.ofSeconds(60)).until(() -> cluster.admin
                .admissionRegistration().v1().mutatingWebhookConfigurations().withName("joulie-pod-placement").get(), c -> c != null);
        MutatingWebhook webhook = registered.getWebhooks().get(0);
        assertThat(webhook.getClientConfig().getUrl()).isEqualTo(cluster.webhookUrl());
        assertThat(webhook.getClientConfig().getCaBundle()).isNotEmpty();
        assertThat(webhook.getFailurePolicy()).isEqualTo("Ignore");
        assertThat(webhook.getMatchConditions()).hasSize(1);
        assertThat(webhook.getNamespaceSelector().getMatchExpressions().get(0).getValues())
                .contains("kube-system", RealCluster.NAMESPACE);

        // created bare: the API server calls the webhook, which adds the preference; the scheduler does the rest
        List<Pod> pods = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            pods.add(bare("webhook-eco-" + i, 1, true));
        }
        pods.add(bare("webhook-any", 1, false));
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).until(() -> {
            // the first Pod may be created before the webhook answers (failure policy Ignore): try until it does
            Pod probe = cluster.admin.resource(bare("webhook-probe", 1, true)).create();
            cluster.admin.pods().inNamespace(NS).withName("webhook-probe").withGracePeriod(0).delete();
            await().atMost(Duration.ofSeconds(30)).until(() -> cluster.admin.pods().inNamespace(NS).withName("webhook-probe").get() == null);
            return EcoPlacement.prefersEco(probe.getSpec());
        });
        place(pods, true);

        for (Pod p : cluster.admin.pods().inNamespace(NS).list().getItems()) {
            boolean eco = p.getMetadata().getName().startsWith("webhook-eco-");
            assertThat(EcoPlacement.prefersEco(p.getSpec())).as(p.getMetadata().getName()).isEqualTo(eco);
            if (eco) {
                assertThat(NODES.get(p.getSpec().getNodeName())).as(p.getMetadata().getName()).isEqualTo("eco");
            }
        }
    }

    @Test
    void aNamespaceWhoseDefaultIsEcoGivesThatClassToPodsThatNameNone() {
        MutatingWebhookConfiguration registered = await().atMost(Duration.ofSeconds(60)).until(() -> cluster.admin
                .admissionRegistration().v1().mutatingWebhookConfigurations().withName("joulie-pod-placement").get(),
                c -> c != null && c.getWebhooks().size() == 2);
        assertThat(registered.getWebhooks().get(1).getClientConfig().getUrl()).isEqualTo(cluster.webhookUrl() + "/namespace-eco");
        cluster.kubectl(null, "label", "namespace", NS, JoulieApi.WORKLOAD_CLASS_NAMESPACE_LABEL + "=eco", "--overwrite").ok();
        try {
            // the API server's view of the namespace's labels may lag the label by a moment: try until it is used
            awaitNamespaceDefault(true);
            List<Pod> pods = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                pods.add(bare("ns-default-" + i, 1, false));
            }
            Pod standard = bare("ns-standard", 1, false);
            standard.getMetadata().setAnnotations(Map.of(JoulieApi.WORKLOAD_CLASS_ANNOTATION, "standard"));
            pods.add(standard);
            pods.add(bare("ns-declared", 1, true));
            place(pods, true);

            for (Pod p : cluster.admin.pods().inNamespace(NS).list().getItems()) {
                String name = p.getMetadata().getName();
                boolean standardClass = name.equals("ns-standard");
                assertThat(p.getMetadata().getAnnotations()).as(name).containsEntry(JoulieApi.WORKLOAD_CLASS_ANNOTATION,
                        standardClass ? "standard" : JoulieApi.WORKLOAD_CLASS_ECO);
                assertThat(EcoPlacement.prefersEco(p.getSpec())).as(name).isEqualTo(!standardClass);
                if (!standardClass) {
                    assertThat(NODES.get(p.getSpec().getNodeName())).as(name).isEqualTo("eco");
                }
            }
        } finally {
            cluster.kubectl(null, "label", "namespace", NS, JoulieApi.WORKLOAD_CLASS_NAMESPACE_LABEL + "-").ok();
            removePods();
            awaitNamespaceDefault(false);
        }
    }

    /** Creates and deletes a probe Pod that names no class until it comes back with (or without) the eco preference. */
    static void awaitNamespaceDefault(boolean applies) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).until(() -> {
            Pod probe = cluster.admin.resource(bare("ns-probe", 1, false)).create();
            cluster.admin.pods().inNamespace(NS).withName("ns-probe").withGracePeriod(0).delete();
            await().atMost(Duration.ofSeconds(30)).until(() -> cluster.admin.pods().inNamespace(NS).withName("ns-probe").get() == null);
            return EcoPlacement.prefersEco(probe.getSpec()) == applies;
        });
    }

    @Test
    void ecoTolerantPodsFillTheEcoNodesFirst() {
        Map<String, Integer> requested = place(pods("eco", 22, 1, true));

        // the eco preference outweighs the load score: both eco nodes fill completely, the last two go to a performance
        // node
        assertThat(requested.get("place-2")).isEqualTo(CORES);
        assertThat(requested.get("place-3")).isEqualTo(CORES);
        assertThat(requested.get("place-0") + requested.get("place-1")).isEqualTo(2);
        assertThat(pods("eco", 1, 1, true).get(0).getSpec().getAffinity().getNodeAffinity()
                .getPreferredDuringSchedulingIgnoredDuringExecution()).containsExactly(EcoPlacement.ecoTerm());
    }
}
