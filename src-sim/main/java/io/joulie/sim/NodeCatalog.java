package io.joulie.sim;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The node types a scenario can name in {@code cluster.types}: {@code model}, built from the {@code node.*}
 * parameters (the seed-era model), and the calibrated server types (docs/simulation.md cites the source of every
 * number).
 */
public final class NodeCatalog {
    /** The type made of the {@code node.*} parameters. */
    public static final String MODEL = "model";

    private static final Map<String, NodeType> TYPES = new LinkedHashMap<>();

    private NodeCatalog() {
    }

    /** The calibrated types, by name. */
    public static Map<String, NodeType> types() {
        return java.util.Collections.unmodifiableMap(TYPES);
    }

    /**
     * Reads {@code cluster.types} ({@code name:share,...}; empty means {@code model} alone) into the two lists.
     * Shares are normalised to add up to 1.
     */
    static void parse(String value, NodeType model, List<NodeType> types, List<Double> shares) {
        if (value.isBlank()) {
            types.add(model);
            shares.add(1.0);
            return;
        }
        double total = 0;
        for (String entry : value.split(",")) {
            String[] kv = entry.trim().split(":");
            SimConfig.require(kv.length == 2, "cluster.types: expected name:share, got '" + entry.trim() + "'");
            String name = kv[0].trim();
            NodeType type = MODEL.equals(name) ? model : TYPES.get(name);
            SimConfig.require(type != null, "cluster.types: unknown node type '" + name + "'; known: " + MODEL + ", "
                    + String.join(", ", TYPES.keySet()));
            double share;
            try {
                share = Double.parseDouble(kv[1].trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("cluster.types: the share of " + name + " must be a number, got '" + kv[1].trim() + "'", e);
            }
            SimConfig.require(share > 0 && Double.isFinite(share), "cluster.types: the share of " + name + " must be > 0");
            types.add(type);
            shares.add(share);
            total += share;
        }
        for (int i = 0; i < shares.size(); i++) {
            shares.set(i, shares.get(i) / total);
        }
    }
}
