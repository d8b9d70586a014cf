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
 * How the agent reads its inputs and applies its controls (host, HTTP, Prometheus) for a node, or for
 * every node when cluster-scoped. Its status is written by the agent after every action.
 */
@Group(JoulieApi.GROUP)
@Version(JoulieApi.VERSION)
@Kind("TelemetryProfile")
@Singular("telemetryprofile")
@Plural("telemetryprofiles")
@ShortNames("tp")
@AdditionalPrinterColumn(name = "Scope", jsonPath = ".spec.target.scope", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Node", jsonPath = ".spec.target.nodeName", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "CPU control", jsonPath = ".status.control.cpu.result", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "GPU control", jsonPath = ".status.control.gpu.result", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class TelemetryProfile extends CustomResource<TelemetryProfileSpec, TelemetryProfileStatus> {
}
