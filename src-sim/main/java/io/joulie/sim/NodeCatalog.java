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
    /** η of the calibrated servers' power supplies: 80 PLUS Platinum at half load (docs/simulation.md, "Calibration"). */
    static final double PSU_EFFICIENCY = 0.92;
    /** The CPU packages' share of a calibrated server's idle wall power (an assumption, docs/simulation.md). */
    static final double PACKAGE_IDLE_SHARE = 0.4;
    /** The lowest RAPL limit per package the calibrated servers are given (an assumption, docs/simulation.md). */
    static final double PACKAGE_CAP_MIN_WATTS = 25;
    /** ω of the calibrated CPUs and GPU boards: a job of sensitivity s draws 1 − ω·(1 − s) of the clock-scaled power. */
    static final double STALL_POWER_SAVING = 0.5;
    /** An H100 SXM board's work per second at its highest clock relative to an A100 SXM board's (docs/simulation.md). */
    static final double H100_THROUGHPUT = 2.0;

    static {
        // Dell PowerEdge R640 (2 sockets): SPECpower_ssj2008 result power_ssj2008-20170829-00781 (2017 Q3), average active
        // power at active idle and 10 % ... 100 % target load
        type("dell-r640", 56, 2, new double[] {55, 125, 151, 176, 202, 232, 261, 301, 357, 421, 469});
        // Dell PowerEdge R940 (4 sockets): SPECpower_ssj2008 result power_ssj2008-20171010-00789 (2017 Q4)
        type("dell-r940", 112, 4, new double[] {106, 245, 292, 336, 383, 437, 502, 583, 694, 820, 915});
        // GPU servers: eight SXM boards on a two-socket host whose CPU part is the R640's measured curve (an assumption).
        // Board power at the highest clock and the limit range: NVIDIA's A100 and H100 datasheets and NVML constraints;
        // idle power, clock range, β = 3, φ = 0.8 and ω are assumptions; the H100's throughput factor is bracketed by the
        // two datasheets' memory bandwidth and dense tensor throughput (docs/simulation.md, "Calibration").
        NodeModel host = TYPES.get("dell-r640").model();
        TYPES.put("gpu-a100x8", new NodeType("gpu-a100x8", host,
                GpuModel.of(8, 50, 400, 3, 0.8, 420, 1410, 100, 400, 400, STALL_POWER_SAVING, 1)));
        TYPES.put("gpu-h100x8", new NodeType("gpu-h100x8", host,
                GpuModel.of(8, 65, 700, 3, 0.8, 590, 1980, 200, 700, 700, STALL_POWER_SAVING, H100_THROUGHPUT)));
    }

    private NodeCatalog() {
    }

    /**
     * A calibrated server type (docs/simulation.md, "Calibration"): its measured load curve; β = 2 and φ = 0.6 (chosen to
     * reproduce published power-capping results), frequencies 1.0 to 2.5 GHz; a cap acts on its packages as the agent
     * writes it (cap / sockets each), clamped to [sockets × 25, 5000] W.
     */
    private static void type(String name, int cores, int sockets, double[] curve) {
        TYPES.put(name, new NodeType(name, new NodeModel(cores, new LoadCurve.Table(curve), 2.0, 0.6, 1000, 2500, 20,
                sockets * PACKAGE_CAP_MIN_WATTS, 5000, 5, 0.5, sockets, PACKAGE_IDLE_SHARE * curve[0] * PSU_EFFICIENCY,
                PSU_EFFICIENCY, STALL_POWER_SAVING)));
    }

    /**
     * The same type with C-states disabled: every point of its CPU curve raised by the idle power they save, less with
     * load (GPU boards unchanged); the saving is the packages' (package C-states), so their idle power rises by as much.
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
                m.throttleTauSeconds(), m.sockets(), m.capsPackages() ? m.packageIdleWatts() + (IDLE_WITHOUT_CSTATES - 1) * idle * m.psuEfficiency() : 0,
                m.psuEfficiency(), m.stallPowerSaving()), t.gpu());
    }

    /** The calibrated types, by name. */
    public static Map<String, NodeType> types() {
        return java.util.Collections.unmodifiableMap(TYPES);
    }

    /**
     * Replaces the throughput of the GPU types named in {@code cluster.gpuThroughput} ({@code type=factor,...}; empty:
     * none), for a sensitivity run.
     */
    static void overrideThroughput(String value, List<NodeType> types) {
        if (value.isBlank()) {
            return;
        }
        for (String entry : value.split(",")) {
            String[] kv = entry.trim().split("=");
            SimConfig.require(kv.length == 2, "cluster.gpuThroughput: expected type=factor, got '" + entry.trim() + "'");
            String name = kv[0].trim();
            double factor;
            try {
                factor = Double.parseDouble(kv[1].trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("cluster.gpuThroughput: the factor of " + name + " must be a number, got '"
                        + kv[1].trim() + "'", e);
            }
            int i = 0;
            while (i < types.size() && !types.get(i).name().equals(name)) {
                i++;
            }
            SimConfig.require(i < types.size() && types.get(i).hasGpus(),
                    "cluster.gpuThroughput: '" + name + "' is not a GPU type of cluster.types");
            NodeType t = types.get(i);
            GpuModel g = t.gpu();
            types.set(i, new NodeType(t.name(), t.model(), new GpuModel(g.boards(), g.board(), g.defaultLimitWatts(), factor)));
        }
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
