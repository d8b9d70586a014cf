package io.joulie.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * The whole per-node contract: what the operator asks of one node ({@code spec}, its part of {@code status}) and what
 * that node's agent did with it ({@code status.applied}). Cluster-scoped; one per managed node, owned by its Node.
 */
@com.fasterxml.jackson.annotation.JsonClassDescription("The power contract of one node: the profile and caps the operator "
        + "asks for (spec), where the node stands and the operator's verdict (status), and what the node's agent applied "
        + "(status.applied, written by the agent alone). One per managed node, owned by its Node.")
@Group(JoulieApi.GROUP)
@Version(JoulieApi.VERSION)
@Kind("NodePowerProfile")
@Singular("nodepowerprofile")
@Plural("nodepowerprofiles")
@ShortNames("npp")
@AdditionalPrinterColumn(name = "Node", jsonPath = ".spec.nodeName", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Profile", jsonPath = ".spec.profile", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "State", jsonPath = ".status.state", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "CPU (W)", jsonPath = ".spec.cpu.packagePowerCapWatts", type = AdditionalPrinterColumn.Type.NUMBER)
@AdditionalPrinterColumn(name = "CPU (%)", jsonPath = ".spec.cpu.packagePowerCapPercent", type = AdditionalPrinterColumn.Type.NUMBER)
@AdditionalPrinterColumn(name = "CPU applied (W)", jsonPath = ".status.applied.cpu.watts", type = AdditionalPrinterColumn.Type.NUMBER)
@AdditionalPrinterColumn(name = "GPU (W)", jsonPath = ".spec.gpu.powerCapWattsPerGpu", type = AdditionalPrinterColumn.Type.NUMBER)
@AdditionalPrinterColumn(name = "GPU (%)", jsonPath = ".spec.gpu.powerCapPercent", type = AdditionalPrinterColumn.Type.NUMBER)
@AdditionalPrinterColumn(name = "GPU applied (W)", jsonPath = ".status.applied.gpu.boards[0].watts", type = AdditionalPrinterColumn.Type.NUMBER)
@AdditionalPrinterColumn(name = "Generation", jsonPath = ".metadata.generation", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Answered", jsonPath = ".status.applied.generation", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Agent", jsonPath = ".status.agent", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "CPU result", jsonPath = ".status.applied.cpu.result", type = AdditionalPrinterColumn.Type.STRING, priority = 1)
@AdditionalPrinterColumn(name = "GPU result", jsonPath = ".status.applied.gpu.result", type = AdditionalPrinterColumn.Type.STRING, priority = 1)
@AdditionalPrinterColumn(name = "Perf pods", jsonPath = ".status.performancePods", type = AdditionalPrinterColumn.Type.INTEGER, priority = 1)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class NodePowerProfile extends CustomResource<NodePowerProfileSpec, NodePowerProfileStatus> {
    /** The agent's answer, {@code status.applied}, or null while there is none. */
    public NodePowerProfileStatus.Applied applied() {
        return getStatus() == null ? null : getStatus().applied();
    }
}
