package io.joulie.agent.routing;

/**
 * The endpoints a TelemetryProfile names for its nodes (HTTP control, HTTP and Prometheus telemetry): a template in
 * which {@code {node}} stands for the node's name, and the timeout when the profile sets none.
 */
public final class NodeEndpoint {
    /** Seconds an HTTP call to an endpoint may take when the profile gives no {@code timeoutSeconds}. */
    public static final int DEFAULT_TIMEOUT_SECONDS = 5;

    private NodeEndpoint() {
    }

    /** {@code template} with every {@code {node}} replaced by {@code node}. */
    public static String forNode(String template, String node) {
        return template.replace("{node}", node);
    }
}
