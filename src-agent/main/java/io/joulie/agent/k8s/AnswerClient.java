package io.joulie.agent.k8s;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/**
 * The client the agent's worker writes through: the NodePowerProfile's answer ({@link StatusWriter}), Events
 * ({@link NodeEvents}), the NodeHardware ({@link HardwareWriter}) and the Node's capability labels ({@link NodeLabeller}).
 * It does not retry and gives each request {@link #TIMEOUT_MS}: the shared client backs off and retries 429 and 5xx up to
 * ten times, which during an API brownout would hold the agent's single worker, and with it a pending cap change, for
 * many seconds per write. Each of those writers logs a failure and is called again at the next reconcile (the periodic
 * one at the latest), which is the agent's own retry.
 */
public final class AnswerClient {
    /** One request's bound, connection included. */
    public static final int TIMEOUT_MS = 5_000;

    private AnswerClient() {
    }

    /** A client of its own, reading and writing objects as {@code client} does (its serialization, {@link UnknownEnumValues}). */
    public static KubernetesClient of(KubernetesClient client) {
        return new KubernetesClientBuilder().withConfig(new ConfigBuilder(client.getConfiguration())
                        .withRequestRetryBackoffLimit(0).withRequestTimeout(TIMEOUT_MS).withConnectionTimeout(TIMEOUT_MS).build())
                .withKubernetesSerialization(client.getKubernetesSerialization()).build();
    }
}
