package io.joulie.operator.cluster;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.quarkus.kubernetes.client.KubernetesClientObjectMapperCustomizer;
import jakarta.inject.Singleton;

import java.util.List;

/**
 * The operator's Kubernetes client skips {@code metadata.managedFields} when it reads a Pod, a Node or an Event. They
 * are the API server's bookkeeping of field owners for server-side apply, and on Pods and Nodes that kubelets update
 * they are a large part of every object: skipped at parse time, they are never built for the tens of thousands of
 * Pods the Pod watch lists on a large cluster. Every other kind keeps them: JOSDK's server-side-apply matcher compares
 * the dependents of the {@code Joulie} resource by the fields its field manager owns, and without them it would find
 * none and apply again on every reconcile (decision 132). A write of an object read this way carries no
 * {@code managedFields}, which the API server reads as "unchanged".
 */
@Singleton
public class IgnoreManagedFields implements KubernetesClientObjectMapperCustomizer {
    /** The kinds whose objects are read without their managed fields. */
    static final List<Class<?>> TRIMMED = List.of(Pod.class, Node.class, Event.class);

    /** The metadata property of a kind, read without {@code managedFields}. */
    abstract static class MetadataWithoutManagedFields {
        @JsonIgnoreProperties({"managedFields"})
        abstract ObjectMeta getMetadata();

        @JsonIgnoreProperties({"managedFields"})
        abstract void setMetadata(ObjectMeta metadata);
    }

    @Override
    public void customize(ObjectMapper mapper) {
        for (Class<?> kind : TRIMMED) {
            mapper.addMixIn(kind, MetadataWithoutManagedFields.class);
        }
    }
}
