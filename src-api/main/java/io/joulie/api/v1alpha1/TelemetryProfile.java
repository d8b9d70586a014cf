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
 * Routing, written by people: how the agents read their inputs and apply their controls (host, HTTP, Prometheus) for
 * one node, or for every node when cluster-scoped. It has no status: what an agent applied is in the node's
 * NodePowerProfile ({@code status.applied}).
 */
@com.fasterxml.jackson.annotation.JsonClassDescription("Routing, written by people: how agents read their inputs and apply "
        + "their controls, for one node (scope node) or as every node's default (scope cluster). What an agent applied is in "
        + "the node's NodePowerProfile, status.applied.")
@Group(JoulieApi.GROUP)
@Version(JoulieApi.VERSION)
@Kind("TelemetryProfile")
@Singular("telemetryprofile")
@Plural("telemetryprofiles")
@ShortNames("tp")
@AdditionalPrinterColumn(name = "Scope", jsonPath = ".spec.target.scope", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Node", jsonPath = ".spec.target.nodeName", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class TelemetryProfile extends CustomResource<TelemetryProfileSpec, Void> {
}
