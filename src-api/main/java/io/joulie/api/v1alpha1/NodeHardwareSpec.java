package io.joulie.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.joulie.api.text.Forms;

/** Which node the inventory describes. */
@com.fasterxml.jackson.annotation.JsonClassDescription("Which node the inventory describes.")
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodeHardwareSpec(
        @Required @JsonPropertyDescription("Name of the Node this inventory describes.") @Pattern(Forms.DNS_SUBDOMAIN) @Size(max = Limits.NAME) String nodeName) {
}
