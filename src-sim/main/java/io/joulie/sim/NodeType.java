package io.joulie.sim;

/**
 * A kind of node in the simulated cluster: its name (the value of its {@code node.kubernetes.io/instance-type}
 * label) and its power model. A cluster mixes types in given shares ({@code cluster.types}).
 *
 * @param name  the type's name
 * @param model its power model
 */
public record NodeType(String name, NodeModel model) {
    /** The well-known label that carries a node's type. */
    public static final String LABEL = io.joulie.api.v1alpha1.JoulieApi.NODE_TYPE_LABEL;

    public NodeType {
        SimConfig.require(name != null && name.matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?"),
                "a node type's name must be a label value (lower-case letters, digits, '-', '.'), got '" + name + "'");
    }
}
