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
 * The desired power state of one node, written by the operator and applied by that node's agent.
 * Cluster-scoped; one per managed node, owned by its Node.
 */
@com.fasterxml.jackson.annotation.JsonClassDescription("The desired power profile and CPU cap of one node, written by the "
        + "operator (one per managed node, owned by its Node) and applied by that node's agent. kubectl joulie status shows "
        + "it beside what the agent applied.")
@Group(JoulieApi.GROUP)
@Version(JoulieApi.VERSION)
@Kind("NodePowerProfile")
@Singular("nodepowerprofile")
@Plural("nodepowerprofiles")
@ShortNames("npp")
@AdditionalPrinterColumn(name = "Node", jsonPath = ".spec.nodeName", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Profile", jsonPath = ".spec.profile", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "State", jsonPath = ".status.state", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Cap (W)", jsonPath = ".spec.cpu.packagePowerCapWatts", type = AdditionalPrinterColumn.Type.NUMBER)
@AdditionalPrinterColumn(name = "Applied (W)", jsonPath = ".status.cap.appliedWatts", type = AdditionalPrinterColumn.Type.NUMBER)
@AdditionalPrinterColumn(name = "Agent", jsonPath = ".status.cap.agent", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Cap (%)", jsonPath = ".spec.cpu.packagePowerCapPercent", type = AdditionalPrinterColumn.Type.NUMBER)
@AdditionalPrinterColumn(name = "GPU (W)", jsonPath = ".spec.gpu.powerCapWattsPerGpu", type = AdditionalPrinterColumn.Type.NUMBER)
@AdditionalPrinterColumn(name = "GPU (%)", jsonPath = ".spec.gpu.powerCapPercent", type = AdditionalPrinterColumn.Type.NUMBER)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class NodePowerProfile extends CustomResource<NodePowerProfileSpec, NodePowerProfileStatus> {
}
