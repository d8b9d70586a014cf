package io.joulie.agent.k8s;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.kubernetes.client.KubernetesClientObjectMapperCustomizer;
import jakarta.inject.Singleton;

/**
 * A value of an enum field this agent does not know (a NodePowerProfile or TelemetryProfile written by a newer
 * operator or CRD) reads as null instead of failing the whole object: otherwise the watch could never list, the
 * agent would never sync and no cap would change on its node. The field then counts as not set, and a
 * NodePowerProfile whose profile is unknown is reported {@code blocked} on its node ({@code runtime.NodePowerProfileValidator}).
 */
@Singleton
public class UnknownEnumValues implements KubernetesClientObjectMapperCustomizer {
    @Override
    public void customize(ObjectMapper objectMapper) {
        objectMapper.enable(DeserializationFeature.READ_UNKNOWN_ENUM_VALUES_AS_NULL);
    }
}
