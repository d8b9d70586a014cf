package io.joulie.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;

/** Which node the inventory describes. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodeHardwareSpec(
        @Required @JsonPropertyDescription("Name of the Node this inventory describes.") String nodeName) {
}
