package io.joulie.sim;

/**
 * A kind of node in the simulated cluster: its name (the value of its {@code node.kubernetes.io/instance-type}
 * label), the power model of its CPU part and, for a GPU node, its GPU boards. A cluster mixes types in given shares
 * ({@code cluster.types}).
 *
 * @param name  the type's name
 * @param model the power model of its CPU part (the whole node without GPUs)
 * @param gpu   its GPU boards, or null for a node without GPUs
 */
public record NodeType(String name, NodeModel model, GpuModel gpu) {
    /** The well-known label that carries a node's type. */
    public static final String LABEL = io.joulie.api.v1alpha1.JoulieApi.NODE_TYPE_LABEL;

    public NodeType {
        SimConfig.require(name != null && name.matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?"),
                "a node type's name must be a label value (lower-case letters, digits, '-', '.'), got '" + name + "'");
    }

    /** A type without GPUs. */
    public NodeType(String name, NodeModel model) {
        this(name, model, null);
    }

    public boolean hasGpus() {
        return gpu != null;
    }

    /** GPU boards per node (0 without GPUs). */
    public int boards() {
        return gpu == null ? 0 : gpu.boards();
    }
}
