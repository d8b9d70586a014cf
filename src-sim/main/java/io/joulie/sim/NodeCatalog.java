package io.joulie.sim;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The node types a scenario can name in {@code cluster.types}: {@code model}, built from the {@code node.*}
 * parameters (the seed-era model), the calibrated server types and the GPU servers (docs/simulation.md cites the
 * source of every number and names the assumptions).
 */
public final class NodeCatalog {
    /** The type made of the {@code node.*} parameters. */
    public static final String MODEL = "model";

    private static final Map<String, NodeType> TYPES = new LinkedHashMap<>();
    /** With C-states disabled, idle power is this much higher (Uptime Intelligence: power management saves "more than 20 %" at low activity). */
    static final double IDLE_WITHOUT_CSTATES = 1 / 0.8;

    static {
        // Dell PowerEdge R640 (2 sockets): SPECpower_ssj2008 result power_ssj2008-20170829-00781 (2017 Q3), average active
        // power at active idle and 10 % ... 100 % target load
        type("dell-r640", 56, new double[] {55, 125, 151, 176, 202, 232, 261, 301, 357, 421, 469}, 100);
        // Dell PowerEdge R940 (4 sockets): SPECpower_ssj2008 result power_ssj2008-20171010-00789 (2017 Q4)
        type("dell-r940", 112, new double[] {106, 245, 292, 336, 383, 437, 502, 583, 694, 820, 915}, 150);
        // GPU servers: eight SXM boards on a two-socket host whose CPU part is the R640's measured curve (an assumption).
        // Board power at the highest clock and the limit range: NVIDIA's A100 and H100 datasheets and NVML constraints;
        // idle power, clock range, β = 3 and φ = 0.8 are assumptions (docs/simulation.md, "Calibration").
        NodeModel host = TYPES.get("dell-r640").model();
        TYPES.put("gpu-a100x8", new NodeType("gpu-a100x8", host, GpuModel.of(8, 50, 400, 3, 0.8, 420, 1410, 100, 400, 400)));
        TYPES.put("gpu-h100x8", new NodeType("gpu-h100x8", host, GpuModel.of(8, 65, 700, 3, 0.8, 590, 1980, 200, 700, 700)));
    }

    private NodeCatalog() {
    }

    /**
     * A calibrated server type (docs/simulation.md, "Calibration"): its measured load curve; β = 2 and φ = 0.6 (chosen to
     * reproduce published power-capping results), frequencies 1.0 to 2.5 GHz, caps clamped to [capMin, 5000] W.
     */
    private static void type(String name, int cores, double[] curve, double capMin) {
        TYPES.put(name, new NodeType(name, new NodeModel(cores, new LoadCurve.Table(curve), 2.0, 0.6, 1000, 2500, 20,
                capMin, 5000, 5, 0.5)));
    }

    /**
     * The same type with C-states disabled: every point of its CPU curve raised by the idle power they save, less with
     * load (GPU boards unchanged).
     */
    static NodeType withoutCStates(NodeType t) {
        if (!(t.model().curve() instanceof LoadCurve.Table table)) {
            return t;
        }
        double idle = table.watts()[0];
        double[] raised = new double[11];
        for (int i = 0; i <= 10; i++) {
            raised[i] = table.watts()[i] + (IDLE_WITHOUT_CSTATES - 1) * idle * (1 - i / 10.0);
        }
        NodeModel m = t.model();
        return new NodeType(t.name(), new NodeModel(m.cores(), new LoadCurve.Table(raised), m.beta(), m.frequencyShare(),
                m.fminMHz(), m.fmaxMHz(), m.floorWatts(), m.capMinWatts(), m.capMaxWatts(), m.capToleranceWatts(),
                m.throttleTauSeconds()), t.gpu());
    }

    /** The calibrated types, by name. */
    public static Map<String, NodeType> types() {
        return java.util.Collections.unmodifiableMap(TYPES);
    }

    /**
     * Reads {@code cluster.types} ({@code name:share,...}; empty means {@code model} alone) into the two lists.
     * Shares are normalised to add up to 1.
     */
    static void parse(String value, NodeType model, boolean cStates, List<NodeType> types, List<Double> shares) {
        if (value.isBlank()) {
            types.add(cStates ? model : withoutCStates(model));
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
            if (!cStates) {
                type = withoutCStates(type);
            }
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
