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
 * What the agent found on a node's hardware: CPU packages and their power range, cpufreq, GPU boards and their
 * power-limit constraints, and which controls work. Cluster-scoped, one per node (named like the node's
 * NodePowerProfile), owned by its Node; created and written by the node's agent only, read by the operator
 * (eligibility, budget estimates) and by admins ({@code kubectl get nhw}).
 */
@Group(JoulieApi.GROUP)
@Version(JoulieApi.VERSION)
@Kind("NodeHardware")
@Singular("nodehardware")
@Plural("nodehardwares")
@ShortNames("nhw")
@AdditionalPrinterColumn(name = "Node", jsonPath = ".spec.nodeName", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "CPU", jsonPath = ".status.cpu.model", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Sockets", jsonPath = ".status.cpu.sockets", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "CPU control", jsonPath = ".status.cpu.control", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "GPUs", jsonPath = ".status.gpu.count", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "GPU", jsonPath = ".status.gpu.model", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "GPU control", jsonPath = ".status.gpu.control", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class NodeHardware extends CustomResource<NodeHardwareSpec, NodeHardwareStatus> {
}
