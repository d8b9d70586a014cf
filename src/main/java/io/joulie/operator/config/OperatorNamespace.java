package io.joulie.operator.config;

import io.fabric8.kubernetes.client.KubernetesClient;

import java.util.Optional;

/** The namespace the operator runs in, where the objects it owns live. */
public final class OperatorNamespace {
    private OperatorNamespace() {
    }

    /** The client's namespace (the Pod's, in a cluster), else {@code POD_NAMESPACE}, else {@code joulie-system}. */
    public static String of(KubernetesClient client, OperatorConfig config) {
        return Optional.ofNullable(client.getNamespace()).or(config::podNamespace).orElse("joulie-system");
    }
}
