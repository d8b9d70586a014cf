package io.joulie.operator.cluster;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.TelemetryProfile;
import io.quarkus.kubernetes.client.KubernetesClientObjectMapperCustomizer;
import jakarta.inject.Singleton;

import java.util.ArrayList;
import java.util.List;

/**
 * A value of an enum field this operator does not know (a NodePowerProfile or TelemetryProfile written under a newer
 * CRD, during an upgrade) reads as null instead of failing the whole object: otherwise the watch could never list, the
 * operator would never sync and never plan. The field then counts as not set ({@link #of} names the fields read so, and
 * the operator reports them on the object, {@link UnknownValueReporter}). The agent does the same for its watches.
 */
@Singleton
public class UnknownEnumValues implements KubernetesClientObjectMapperCustomizer {
    @Override
    public void customize(ObjectMapper objectMapper) {
        objectMapper.enable(DeserializationFeature.READ_UNKNOWN_ENUM_VALUES_AS_NULL);
    }

    /**
     * The enum fields of {@code object} that are unset although what holds them is there: a value this version does not
     * know (or none where the CRD requires one).
     */
    public static List<String> of(HasMetadata object) {
        List<String> fields = new ArrayList<>(2);
        if (object instanceof NodePowerProfile npp) {
            if (npp.getSpec() != null && npp.getSpec().profile() == null) {
                fields.add("spec.profile");
            }
            var status = npp.getStatus();
            if (status != null && status.state() == null && (status.since() != null || status.reason() != null)) {
                fields.add("status.state");
            }
            if (status != null && status.applied() != null) {
                var applied = status.applied();
                if (applied.cpu() != null && applied.cpu().result() == null && applied.cpu().backend() != null) {
                    fields.add("status.applied.cpu.result");
                }
                if (applied.gpu() != null && applied.gpu().result() == null && applied.gpu().backend() != null) {
                    fields.add("status.applied.gpu.result");
                }
            }
        } else if (object instanceof TelemetryProfile tp) {
            if (tp.getSpec() != null && tp.getSpec().target() != null && tp.getSpec().target().scope() == null) {
                fields.add("spec.target.scope");
            }
        }
        return fields;
    }
}
