package io.joulie.sim.cluster;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.JoulieSpec;
import io.joulie.api.v1alpha1.NodeHardware;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.api.v1alpha1.TelemetryProfileSpec;
import io.joulie.sim.NodeType;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;

/**
 * The objects the twin puts on the API server and removes at the end: a Node per simulated node (labelled for the
 * operator's and the agent's selectors), namespace {@value #NAMESPACE} for the job Pods, and the cluster-scoped
 * TelemetryProfile {@value #TELEMETRY_PROFILE} that routes every node's CPU control and telemetry (and, with GPU nodes, the
 * GPU control and telemetry) to the twin, and the {@code Joulie} resource whose {@code spec.policy} holds the planner
 * settings ({@link OperatorPolicy}).
 */
final class TwinObjects {
    static final String NAMESPACE = "sim";
    static final String SIM_LABEL = "joulie.io/sim";
    static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    static final String TELEMETRY_PROFILE = "joulie-sim";
    /** The extended resource a GPU node advertises and a GPU job's Pod requests, and the key of the GPU nodes' taint. */
    static final String GPU_RESOURCE = "nvidia.com/gpu";

    private final KubernetesClient client;
    /** Node name → its type. */
    private final Map<String, NodeType> nodes;
    private boolean created;
    private boolean ownsJoulie;

    TwinObjects(KubernetesClient client, Map<String, NodeType> nodeTypes) {
        this.client = client;
        this.nodes = Map.copyOf(nodeTypes);
    }

    /**
     * Refuses to start when a Node of one of the twin's names or a {@code Joulie} resource exists (it never touches
     * real nodes or an installation's settings), then creates the namespace (if missing), the Nodes, the
     * TelemetryProfile pointing at {@code endpoints} and the {@code Joulie} resource whose {@code spec.policy} the
     * operator plans with.
     */
    void create(String endpoints, JoulieSpec.Policy policy) {
        for (String name : nodes.keySet()) {
            if (client.nodes().withName(name).get() != null) {
                throw new IllegalStateException("a Node named " + name + " already exists on " + client.getMasterUrl()
                        + "; the twin creates its own nodes and will not touch real ones (or an earlier run's: delete them)");
            }
        }
        if (client.resources(Joulie.class).withName(Joulie.ACTIVE_NAME).get() != null) {
            throw new IllegalStateException("a Joulie resource already exists on " + client.getMasterUrl() + "; the twin "
                    + "plans with a spec.policy of its own and will not change an installation's (or an earlier run's: delete it)");
        }
        if (client.namespaces().withName(NAMESPACE).get() == null) {
            client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build()).create();
        }
        created = true;
        nodes.forEach((name, type) -> {
            // the allocatable CPU (what demand_sized_v1 divides by) and, on a GPU node, its boards, as a device plugin
            // advertises them (what makes the operator cap them); GPU nodes are tainted for GPU jobs only
            Map<String, Quantity> allocatable = new java.util.LinkedHashMap<>();
            allocatable.put("cpu", new Quantity(Integer.toString(type.model().cores())));
            if (type.hasGpus()) {
                allocatable.put(GPU_RESOURCE, new Quantity(Integer.toString(type.boards())));
            }
            NodeBuilder b = new NodeBuilder().withNewMetadata().withName(name).addToLabels("joulie.io/managed", "true")
                    .addToLabels(SIM_LABEL, "true").addToLabels(NodeType.LABEL, type.name()).endMetadata().withNewSpec().endSpec()
                    .withNewStatus().addToAllocatable(allocatable).addToCapacity(allocatable).endStatus();
            if (type.hasGpus()) {
                b.editSpec().addNewTaint().withKey(GPU_RESOURCE).withValue("present").withEffect("NoSchedule").endTaint().endSpec();
            }
            var node = client.nodes().resource(b.build()).create();
            // a real API server ignores the status of a create: the status subresource, as a kubelet reports it
            if (node.getStatus() == null || node.getStatus().getAllocatable() == null
                    || !node.getStatus().getAllocatable().keySet().containsAll(allocatable.keySet())) {
                client.nodes().withName(name).editStatus(n -> new NodeBuilder(n).editOrNewStatus().addToAllocatable(allocatable)
                        .addToCapacity(allocatable).endStatus().build());
            }
        });
        boolean gpus = nodes.values().stream().anyMatch(NodeType::hasGpus);
        TelemetryProfileSpec.Source telemetry = new TelemetryProfileSpec.Source(TelemetryProfileSpec.SourceType.HTTP,
                new TelemetryProfileSpec.HttpEndpoint(endpoints + "/telemetry/{node}", 5), null);
        TelemetryProfileSpec spec = new TelemetryProfileSpec(
                new TelemetryProfileSpec.Target(TelemetryProfileSpec.Scope.CLUSTER, null),
                new TelemetryProfileSpec.Sources(telemetry, gpus ? telemetry : null, null, null),
                new TelemetryProfileSpec.Controls(new TelemetryProfileSpec.CpuControl(TelemetryProfileSpec.ControlType.HTTP,
                        new TelemetryProfileSpec.CpuHttpControl(endpoints + "/control/{node}", 5, TelemetryProfileSpec.CpuControlMode.RAPL)),
                        gpus ? new TelemetryProfileSpec.GpuControl(TelemetryProfileSpec.ControlType.HTTP, new TelemetryProfileSpec.GpuHttpControl(
                                endpoints + "/control/{node}", 5, TelemetryProfileSpec.GpuControlMode.POWERCAP)) : null));
        TelemetryProfile tp = new TelemetryProfile();
        tp.setMetadata(new ObjectMetaBuilder().withName(TELEMETRY_PROFILE).build());
        tp.setSpec(spec);
        client.resource(tp).create();
        client.resource(OperatorPolicy.resource(policy)).create();
        ownsJoulie = true;
    }

    /**
     * On a cluster that outlives the run: removes the twin's Pods (by label: other Pods in the namespace stay), its
     * Nodes, their NodePowerProfiles (with the agent's answers in them) and NodeHardware, and its cluster
     * TelemetryProfile.
     * Nothing when this run created nothing (it was refused).
     */
    void remove(PrintStream out) {
        if (!created) {
            return;
        }
        try {
            // no kubelet confirms a graceful deletion on the twin's Nodes, so at once
            client.pods().inNamespace(NAMESPACE).withLabel(MANAGED_BY, "joulie-sim").withGracePeriod(0).delete();
            for (String name : List.copyOf(nodes.keySet())) {
                client.nodes().withName(name).delete();
                // the operator's NodePowerProfile, which holds the agent's answer too
                client.resources(NodePowerProfile.class).withName(JoulieApi.nodePowerProfileName(name)).delete();
                // and the agent's NodeHardware (owned by the Node: a real server collects it, the mock does not)
                client.resources(NodeHardware.class).withName(JoulieApi.nodePowerProfileName(name)).delete();
            }
            client.resources(TelemetryProfile.class).withName(TELEMETRY_PROFILE).delete();
            if (ownsJoulie) {
                // what the operator installed for it is owned by it: a real server collects that
                client.resources(Joulie.class).withName(Joulie.ACTIVE_NAME).delete();
            }
        } catch (RuntimeException e) {
            out.println("could not remove the twin's objects from " + client.getMasterUrl() + ": " + e.getMessage());
        }
    }
}
