package io.joulie.operator.cluster;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.quarkus.kubernetes.client.KubernetesClientObjectMapperCustomizer;
import jakarta.inject.Singleton;

/**
 * The operator's Kubernetes client skips {@code metadata.managedFields} when it reads an object. They are the API
 * server's bookkeeping of field owners for server-side apply, which the operator does not use (decision 33), and on
 * Pods that a kubelet has updated they are a large part of every object: skipped at parse time, they are never built
 * for the tens of thousands of Pods the Pod watch lists on a large cluster. A write of an object read this way carries
 * no {@code managedFields}, which the API server reads as "unchanged".
 */
@Singleton
public class IgnoreManagedFields implements KubernetesClientObjectMapperCustomizer {
    @JsonIgnoreProperties({"managedFields"})
    abstract static class WithoutManagedFields {
    }

    @Override
    public void customize(ObjectMapper mapper) {
        mapper.addMixIn(ObjectMeta.class, WithoutManagedFields.class);
    }
}
