package io.joulie.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.Toleration;

import java.util.List;
import java.util.Map;

/** What the operator installs and how. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JoulieSpec(
        @JsonPropertyDescription("The node agent DaemonSet.") Agent agent) {

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Agent(
            @JsonPropertyDescription("Agent image; defaults to the image the operator was released with (RELATED_IMAGE_AGENT).")
            String image,
            @JsonPropertyDescription("Nodes that run an agent; defaults to the operator's managed-node selector.")
            Map<String, String> nodeSelector,
            @JsonPropertyDescription("Tolerations of the agent pods, e.g. to reach tainted HPC nodes.")
            List<Toleration> tolerations,
            @JsonPropertyDescription("Resources of the agent container.")
            ResourceRequirements resources,
            @JsonPropertyDescription("Image pull policy: Always, IfNotPresent or Never.")
            String imagePullPolicy,
            @JsonPropertyDescription("Restore the hardware limits found at start when the agent stops (default true).")
            Boolean restoreOnExit,
            @JsonPropertyDescription("How often the agent re-checks the hardware, e.g. 20s (default).")
            String reconcileInterval) {
    }
}
