package io.joulie.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * The {@code Joulie} resource: one per cluster (the one named {@code joulie} is active) describing the
 * installation the operator manages: the node agent DaemonSet and its supporting objects, and the planner's
 * {@code spec.policy}. The API's constants (group, labels, object names) are in {@link JoulieApi}.
 */
@JsonClassDescription("The Joulie installation, one per cluster, named joulie: the node agent DaemonSet the operator deploys "
        + "and its supporting objects (spec.agent), the planner's settings and rules (spec.policy) and the monitoring objects "
        + "(spec.monitoring). docs/install.md")
@ValidationRule(value = "self.metadata.name == '" + Joulie.ACTIVE_NAME + "'",
        message = "a cluster has one Joulie resource, named " + Joulie.ACTIVE_NAME, reason = "FieldValueInvalid")
@Group(JoulieApi.GROUP)
@Version(JoulieApi.VERSION)
@Kind("Joulie")
@Singular("joulie")
@Plural("joulies")
@AdditionalPrinterColumn(name = "Available", jsonPath = ".status.conditions[?(@.type==\"Available\")].status", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Agents ready", jsonPath = ".status.agents.ready", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Agents desired", jsonPath = ".status.agents.desired", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class Joulie extends CustomResource<JoulieSpec, JoulieStatus> {
    /** Only the resource with this name is acted on; others get a condition saying so. */
    public static final String ACTIVE_NAME = "joulie";
}
