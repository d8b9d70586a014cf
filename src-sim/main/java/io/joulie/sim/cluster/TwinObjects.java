package io.joulie.sim.cluster;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.joulie.api.v1alpha1.JoulieApi;
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
 * TelemetryProfile {@value #TELEMETRY_PROFILE} that routes every node's CPU control and telemetry to the twin.
 */
final class TwinObjects {
    static final String NAMESPACE = "sim";
    static final String SIM_LABEL = "joulie.io/sim";
    static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    static final String TELEMETRY_PROFILE = "joulie-sim";

    private final KubernetesClient client;
    /** Node name → its type. */
    private final Map<String, NodeType> nodes;
    private boolean created;

    TwinObjects(KubernetesClient client, Map<String, NodeType> nodeTypes) {
        this.client = client;
        this.nodes = Map.copyOf(nodeTypes);
    }

    /**
     * Refuses to start when a Node of one of the twin's names exists (it never touches real nodes), then creates the
     * namespace (if missing), the Nodes and the TelemetryProfile pointing at {@code endpoints}.
     */
    void create(String endpoints) {
        for (String name : nodes.keySet()) {
            if (client.nodes().withName(name).get() != null) {
                throw new IllegalStateException("a Node named " + name + " already exists on " + client.getMasterUrl()
                        + "; the twin creates its own nodes and will not touch real ones (or an earlier run's: delete them)");
            }
        }
        if (client.namespaces().withName(NAMESPACE).get() == null) {
            client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build()).create();
        }
        created = true;
        nodes.forEach((name, type) -> {
            Quantity cpu = new Quantity(Integer.toString(type.model().cores()));
            var node = client.nodes().resource(new NodeBuilder().withNewMetadata().withName(name)
                    .addToLabels("joulie.io/managed", "true").addToLabels(SIM_LABEL, "true").addToLabels(NodeType.LABEL, type.name())
                    .endMetadata().withNewSpec().endSpec().withNewStatus().addToAllocatable("cpu", cpu).addToCapacity("cpu", cpu)
                    .endStatus().build()).create();
            // a real API server ignores the status of a create: the allocatable CPU (what demand_sized_v1 divides by) goes
            // through the status subresource, as a kubelet reports it
            if (node.getStatus() == null || node.getStatus().getAllocatable() == null || !node.getStatus().getAllocatable().containsKey("cpu")) {
                client.nodes().withName(name).editStatus(n -> new NodeBuilder(n).editOrNewStatus().addToAllocatable("cpu", cpu)
                        .addToCapacity("cpu", cpu).endStatus().build());
            }
        });
        TelemetryProfileSpec spec = new TelemetryProfileSpec(
                new TelemetryProfileSpec.Target(TelemetryProfileSpec.Scope.CLUSTER, null),
                new TelemetryProfileSpec.Sources(new TelemetryProfileSpec.Source(TelemetryProfileSpec.SourceType.HTTP,
                        new TelemetryProfileSpec.HttpEndpoint(endpoints + "/telemetry/{node}", 5), null), null, null, null),
                new TelemetryProfileSpec.Controls(new TelemetryProfileSpec.CpuControl(TelemetryProfileSpec.ControlType.HTTP,
                        new TelemetryProfileSpec.CpuHttpControl(endpoints + "/control/{node}", 5, TelemetryProfileSpec.CpuControlMode.RAPL)), null));
        TelemetryProfile tp = new TelemetryProfile();
        tp.setMetadata(new ObjectMetaBuilder().withName(TELEMETRY_PROFILE).build());
        tp.setSpec(spec);
        client.resource(tp).create();
    }

    /**
     * On a cluster that outlives the run: removes the twin's Pods (by label: other Pods in the namespace stay), its
     * Nodes, their NodePowerProfiles and the agent's node-scoped TelemetryProfiles, and its cluster TelemetryProfile.
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
                // the operator's NodePowerProfile and the agent's node-scoped TelemetryProfile share this name
                client.resources(NodePowerProfile.class).withName(JoulieApi.nodePowerProfileName(name)).delete();
                client.resources(TelemetryProfile.class).withName(JoulieApi.nodePowerProfileName(name)).delete();
            }
            client.resources(TelemetryProfile.class).withName(TELEMETRY_PROFILE).delete();
        } catch (RuntimeException e) {
            out.println("could not remove the twin's objects from " + client.getMasterUrl() + ": " + e.getMessage());
        }
    }
}
