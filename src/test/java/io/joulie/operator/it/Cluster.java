package io.joulie.operator.it;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.joulie.api.v1alpha1.ControlResult;
import io.joulie.api.v1alpha1.FieldManagers;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.JoulieSpec;
import io.joulie.api.v1alpha1.NodeHardware;
import io.joulie.api.v1alpha1.NodeHardwareSpec;
import io.joulie.api.v1alpha1.NodeHardwareStatus;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.NodePowerProfileStatus;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.api.v1alpha1.TelemetryProfileSpec;
import io.joulie.operator.cluster.ClusterView;
import io.joulie.operator.config.OperatorSettings;
import io.joulie.operator.runtime.PlannerLoop;
import io.joulie.planner.PodClass;
import io.joulie.planner.PodClassifier;
import io.joulie.testkit.PrometheusText;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import static org.awaitility.Awaitility.await;

/** Test helpers for driving the real operator on the Kubernetes mock server. */
final class Cluster {
    static final String MANAGED = "joulie.io/managed";
    static final Duration WAIT = Duration.ofSeconds(20);

    private final KubernetesClient client;
    private final ClusterView view;

    Cluster(KubernetesClient client, ClusterView view) {
        this.client = client;
        this.view = view;
    }

    /**
     * Removes every node, pod, NodePowerProfile and the Events about NodePowerProfiles, and waits until
     * the operator's view is empty. Events about the operator itself (recorded once) stay.
     */
    void reset() {
        client.nodes().delete();
        client.pods().inAnyNamespace().delete();
        await().atMost(WAIT).until(() -> view.nodes().isEmpty() && view.performancePodCount() == 0);
        client.resources(NodePowerProfile.class).delete();
        client.resources(TelemetryProfile.class).delete();
        client.resources(NodeHardware.class).delete();
        client.v1().events().inAnyNamespace().list().getItems().stream()
                .filter(e -> "NodePowerProfile".equals(e.getInvolvedObject().getKind()))
                .forEach(e -> client.resource(e).delete());
        await().atMost(WAIT).until(() -> view.profiles().isEmpty());
    }

    /** Creates the active {@code Joulie} resource with this {@code spec.policy} (null: none). */
    Joulie joulie(JoulieSpec.Policy policy) {
        Joulie j = new Joulie();
        j.getMetadata().setName(Joulie.ACTIVE_NAME);
        j.setSpec(new JoulieSpec(null, policy, null));
        return client.resource(j).create();
    }

    /**
     * Replaces the active {@code Joulie} resource's spec. Retried on a conflict: the operator writes the
     * resource's status at any time, which can race with the edit.
     */
    void setJoulieSpec(JoulieSpec spec) {
        await().atMost(WAIT).ignoreException(io.fabric8.kubernetes.client.KubernetesClientException.class).until(() -> {
            client.resources(Joulie.class).withName(Joulie.ACTIVE_NAME).edit(j -> {
                j.setSpec(spec);
                return j;
            });
            return true;
        });
    }

    /**
     * Deletes every {@code Joulie} resource and waits until the planner is back on the environment's settings, running
     * {@code tick} between the looks (the scheduled tick, when it runs, does not need it).
     */
    void noJoulie(PlannerLoop loop, OperatorSettings defaults, Runnable tick) {
        client.resources(Joulie.class).delete();
        await().atMost(WAIT).until(() -> view.installation() == null);
        await().atMost(WAIT).until(() -> {
            tick.run();
            return loop.plannerSettings().equals(defaults.planner());
        });
    }

    /**
     * Waits until the operator's watches have seen what the API server holds now: every Node, NodePowerProfile and the
     * {@code Joulie} resource at the same resourceVersion, and the same active performance-only pods per node.
     */
    void settle() {
        await().atMost(WAIT).until(this::viewCaughtUp);
    }

    private boolean viewCaughtUp() {
        Map<String, String> nodes = versions(client.nodes().list().getItems());
        Map<String, String> profiles = versions(client.resources(NodePowerProfile.class).list().getItems());
        Joulie joulie = client.resources(Joulie.class).withName(Joulie.ACTIVE_NAME).get();
        Joulie seen = view.installation();
        if (!nodes.equals(versions(view.nodes())) || !profiles.equals(versions(view.profiles()))
                || !Objects.equals(joulie == null ? null : joulie.getMetadata().getResourceVersion(),
                seen == null ? null : seen.getMetadata().getResourceVersion())) {
            return false;
        }
        Map<String, List<String>> performance = new HashMap<>();
        for (Pod p : client.pods().inAnyNamespace().list().getItems()) {
            if (PodClassifier.isActive(p) && PodClassifier.classify(p) == PodClass.PERFORMANCE) {
                String node = p.getSpec().getNodeName() == null ? "" : p.getSpec().getNodeName();
                performance.computeIfAbsent(node, n -> new ArrayList<>()).add(p.getMetadata().getNamespace() + "/"
                        + p.getMetadata().getName());
            }
        }
        long total = performance.values().stream().mapToLong(List::size).sum();
        return view.performancePodCount() == total && performance.entrySet().stream()
                .allMatch(e -> view.performancePods(e.getKey()).equals(e.getValue().stream().sorted().toList()));
    }

    private static Map<String, String> versions(Collection<? extends HasMetadata> objects) {
        Map<String, String> v = new HashMap<>();
        objects.forEach(o -> v.put(o.getMetadata().getName(), o.getMetadata().getResourceVersion()));
        return v;
    }

    Node managedNode(String name) {
        return node(name, Map.of(MANAGED, "true"));
    }

    /** A managed node whose device plugin advertises {@code gpus} allocatable {@code nvidia.com/gpu}. */
    Node managedGpuNode(String name, int gpus) {
        return client.nodes().resource(new NodeBuilder().withNewMetadata().withName(name).withLabels(Map.of(MANAGED, "true"))
                .endMetadata().withNewSpec().endSpec().withNewStatus()
                .addToAllocatable("nvidia.com/gpu", new io.fabric8.kubernetes.api.model.Quantity(Integer.toString(gpus)))
                .endStatus().build()).create();
    }

    /** The node's NodeHardware as its agent writes it, once the operator's view has it. */
    void hardware(String node, NodeHardwareStatus status) {
        NodeHardware nhw = new NodeHardware();
        nhw.getMetadata().setName(JoulieApi.nodePowerProfileName(node));
        nhw.getMetadata().setLabels(JoulieApi.nodeLabelValue(node).map(value -> Map.of(JoulieApi.NODE_LABEL, value)).orElse(null));
        nhw.setSpec(new NodeHardwareSpec(node));
        nhw = client.resource(nhw).create();
        nhw.setStatus(status);
        client.resource(nhw).updateStatus();
        await().atMost(WAIT).until(() -> status.equals(view.hardware(node)));
    }

    /** A NodeHardware as given (name, labels, spec.nodeName), with a status, not waiting for the operator's view. */
    void hardwareObject(String name, Map<String, String> labels, String node, NodeHardwareStatus status) {
        NodeHardware nhw = new NodeHardware();
        nhw.getMetadata().setName(name);
        nhw.getMetadata().setLabels(labels);
        nhw.setSpec(new NodeHardwareSpec(node));
        nhw = client.resource(nhw).create();
        nhw.setStatus(status);
        client.resource(nhw).updateStatus();
    }

    /** The node's hardware as the operator's view has it. */
    NodeHardwareStatus viewedHardware(String node) {
        return view.hardware(node);
    }

    Node node(String name, Map<String, String> labels) {
        return client.nodes().resource(new NodeBuilder().withNewMetadata().withName(name).withLabels(labels).endMetadata()
                .withNewSpec().endSpec().build()).create();
    }

    /**
     * A managed node of type {@code type} (its {@code node.kubernetes.io/instance-type} label) reporting {@code cores}
     * of allocatable CPU, as a kubelet does through the status subresource.
     */
    Node typedNode(String name, String type, int cores) {
        Quantity cpu = new Quantity(Integer.toString(cores));
        node(name, Map.of(MANAGED, "true", JoulieApi.NODE_TYPE_LABEL, type));
        return client.nodes().withName(name).editStatus(n -> new NodeBuilder(n).editOrNewStatus().addToAllocatable("cpu", cpu)
                .addToCapacity("cpu", cpu).endStatus().build());
    }

    /**
     * A pod requesting {@code cpu} cores whose nodeSelector asks for {@code profile} (null: none), running on {@code node}
     * or pending (null), declaring {@code joulie.io/workload-class: eco} or not.
     */
    Pod podRequesting(String ns, String name, String node, String profile, String cpu, boolean declaresEco) {
        PodBuilder b = new PodBuilder().withNewMetadata().withNamespace(ns).withName(name).endMetadata()
                .withNewSpec().withNodeName(node).addNewContainer().withName("c").withImage("busybox")
                .withNewResources().addToRequests("cpu", new Quantity(cpu)).endResources().endContainer().endSpec()
                .withNewStatus().withPhase(node == null ? "Pending" : "Running").endStatus();
        if (node != null) {
            b.editStatus().withConditions(admitted()).endStatus();
        }
        if (profile != null) {
            b.editSpec().withNodeSelector(Map.of(JoulieApi.POWER_PROFILE_LABEL, profile)).endSpec();
        }
        if (declaresEco) {
            b.editMetadata().addToAnnotations(JoulieApi.WORKLOAD_CLASS_ANNOTATION, JoulieApi.WORKLOAD_CLASS_ECO).endMetadata();
        }
        return client.pods().inNamespace(ns).resource(b.build()).create();
    }

    /**
     * The condition a running pod carries: {@code PodScheduled} (set by the scheduler, or by the kubelet once it admitted
     * a pod bound past the scheduler). A pod bound straight to a node without it, whose labels the node does not match,
     * is one the kubelet will reject: the operator does not count it (decision 156).
     */
    static io.fabric8.kubernetes.api.model.PodCondition admitted() {
        return new io.fabric8.kubernetes.api.model.PodConditionBuilder().withType("PodScheduled").withStatus("True").build();
    }

    /** A running pod pinned to {@code node} (the kubelet admitted it) whose nodeSelector asks for {@code profile} (null: none). */
    Pod pod(String ns, String name, String node, String profile) {
        PodBuilder b = new PodBuilder().withNewMetadata().withNamespace(ns).withName(name).endMetadata()
                .withNewSpec().withNodeName(node).addNewContainer().withName("c").withImage("busybox").endContainer()
                .endSpec().withNewStatus().withPhase("Running").withConditions(admitted()).endStatus();
        if (profile != null) {
            b.editSpec().withNodeSelector(Map.of(JoulieApi.POWER_PROFILE_LABEL, profile)).endSpec();
        }
        return client.pods().inNamespace(ns).resource(b.build()).create();
    }

    /**
     * The pod completes; waits until the operator's view has seen it leave (when it was its node's last performance-only
     * pod, that moment starts the drain's settle time, on whatever the clock says when the watch delivers it).
     */
    void finish(String ns, String name) {
        Pod pod = client.pods().inNamespace(ns).withName(name).get();
        pod.getStatus().setPhase("Succeeded");
        client.pods().inNamespace(ns).resource(pod).updateStatus();
        await().atMost(WAIT).until(() -> view.performancePodSeen(ns + "/" + name) == null);
    }

    /**
     * What the node's agent answers, as it writes it: {@code status.applied} of the node's NodePowerProfile (server-side
     * apply, the agent's field manager) says {@code result} for the generation {@code generation}, with {@code capWatts}
     * in force.
     */
    void agentReports(String node, long generation, ControlResult result, double capWatts) {
        NodePowerProfile answer = new NodePowerProfile();
        answer.getMetadata().setName(JoulieApi.nodePowerProfileName(node));
        answer.setStatus(NodePowerProfileStatus.ofApplied(new NodePowerProfileStatus.Applied(generation, new NodePowerProfileStatus.Cpu(
                result, "powercap", capWatts, null, null, "applied node cap " + capWatts + " W"), null, "2026-11-21T12:00:00Z")));
        client.resource(answer).subresource("status").patch(FieldManagers.apply(FieldManagers.AGENT), answer);
    }

    NodePowerProfile profile(String node) {
        return client.resources(NodePowerProfile.class).withName(JoulieApi.nodePowerProfileName(node)).get();
    }

    /** The node's state as its NodePowerProfile status records it, or null. */
    PowerState state(String node) {
        NodePowerProfile npp = profile(node);
        return npp == null || npp.getStatus() == null ? null : npp.getStatus().state();
    }

    String label(String node) {
        Map<String, String> labels = client.nodes().withName(node).get().getMetadata().getLabels();
        return labels == null ? null : labels.get(JoulieApi.POWER_PROFILE_LABEL);
    }

    /** The Events recorded with this reason (after the operator's Event queue has been written out). */
    List<Event> events(String reason) {
        io.quarkus.arc.Arc.container().instance(io.joulie.operator.cluster.EventRecorder.class).get().flush();
        return client.v1().events().inAnyNamespace().list().getItems().stream()
                .filter(e -> reason.equals(e.getReason())).toList();
    }

    /** The management port the test instance bound (random in tests). */
    static int managementPort() {
        return org.eclipse.microprofile.config.ConfigProvider.getConfig().getValue("quarkus.management.test-port", Integer.class);
    }

    /** Sum of the samples of a Prometheus metric whose labels include {@code labels} ("k=\"v\"" pairs). */
    static double metric(String name, String... labels) {
        return PrometheusText.metric(managementPort(), name, labels);
    }
}
