package io.joulie.planner;

import java.util.List;

/**
 * {@code demand_sized_v1}: the eco pool is sized to the work that must or may run there, eco-only pods and pods
 * that declare they lose little at a lower frequency (annotation {@code joulie.io/workload-class: eco}), so that eco
 * nodes run full, where a power cap saves energy; the performance pool keeps every other node, and at least the
 * performance-only demand plus headroom.
 *
 * <pre>
 *   c    = mean allocatable CPU cores of the eligible nodes
 *   eco  = max(ceil(D_ecoOnly / c), floor((D_ecoOnly + D_declared) / c))
 *   need = ceil(D_perf · (1 + headroom) / c)
 *   hp   = max(n − eco, need), clamped to [min, max] and then to [0, n]
 * </pre>
 *
 * where D are the cores requested by active pods, pending included: performance-only, eco-only, and those without a
 * profile constraint that declare eco. Eco-only work gets nodes even when it fills none (it can run nowhere else);
 * declared work only the nodes it fills (a half-empty eco node saves little and slows what the scheduler spreads
 * onto it).
 *
 * When the GPU demand is known and some nodes hold boards, every GPU server that the performance-only boards plus
 * headroom do not need is in a GPU eco pool: on boards, which are allocated whole, the eco limit saves energy per unit
 * of work for GPU work of any sensitivity (unlike CPU caps on compute-bound work), so the GPU pool is sized by class,
 * performance-only or not. Its servers go eco first and the kept GPU servers last (decision 193).
 *
 * Without CPU figures (no node reports allocatable CPU, or the demand is unknown) it counts pods instead: no eco
 * pool, {@code need = ceil(P · (1 + headroom) / perNode)}. Bounds are normalised as queue_aware_v1's: min &lt; 0 → 0,
 * max ≤ 0 → n, max &lt; min → min, perNode ≤ 0 → 1; a negative headroom counts as 0.
 */
public final class DemandSizedPolicy implements CountingPolicy {
    private final double headroom;
    private final Bounds bounds;
    private final int perNode;

    public DemandSizedPolicy(double headroom, int min, int max, int perNode) {
        this.headroom = Double.isFinite(headroom) ? Math.max(0, headroom) : 0;
        this.bounds = new Bounds(min, max);
        this.perNode = perNode <= 0 ? 1 : perNode;
    }

    @Override
    public String name() {
        return PolicyType.DEMAND_SIZED_V1.policyName();
    }

    @Override
    public int performanceNodes(ClusterContext context) {
        List<ManagedNode> eligible = context.eligible();
        int n = eligible.size();
        return bounds.clamp(Math.max(n - ecoNodes(context, eligible) - gpuEcoNodes(context, eligible), need(context, eligible, headroom)), n);
    }

    /**
     * The GPU servers that stay out of the GPU eco pool (decision 193): those the performance-only boards plus headroom
     * need, {@code ceil(G_perf × (1 + headroom) / b)} in servers of the mean boards {@code b}, at most all of them; empty
     * when the GPU demand is not known or no eligible node holds boards.
     */
    @Override
    public java.util.OptionalInt gpuPerformanceNodes(ClusterContext context) {
        List<ManagedNode> gpu = context.eligible().stream().filter(EcoSelection::hasGpus).toList();
        if (gpu.isEmpty() || !context.gpuDemand().known()) {
            return java.util.OptionalInt.empty();
        }
        return java.util.OptionalInt.of((int) (gpu.size() - gpuEcoNodes(context, context.eligible())));
    }

    /** The GPU eco pool in servers (0 when the GPU demand is not known or no node holds boards). */
    private long gpuEcoNodes(ClusterContext context, List<ManagedNode> eligible) {
        List<ManagedNode> gpu = eligible.stream().filter(EcoSelection::hasGpus).toList();
        ClusterContext.GpuDemand d = context.gpuDemand();
        if (gpu.isEmpty() || !d.known()) {
            return 0;
        }
        double boards = gpu.stream().mapToInt(m -> m.power().gpus()).average().orElse(1);
        long need = (long) Math.ceil(d.performanceGpus() * (1 + headroom) / boards - 1e-9);
        return Math.max(0, gpu.size() - need);
    }

    /** The nodes the performance-only demand alone fills, without headroom: what a power budget must not cut into. */
    @Override
    public int demand(ClusterContext context) {
        List<ManagedNode> eligible = context.eligible();
        return (int) Math.min(eligible.size(), need(context, eligible, 0));
    }

    @Override
    public String formula(ClusterContext context, int hp) {
        List<ManagedNode> eligible = context.eligible();
        int n = eligible.size();
        double cores = meanCores(eligible);
        ClusterContext.CpuDemand d = context.demand();
        long need = need(context, eligible, headroom);
        String how = cores > 0 && d.known()
                ? "eco=max(ceil(%.1f/%.1f), floor((%.1f+%.1f)/%.1f))=%d, need=ceil(%.1f x %s/%.1f)=%d".formatted(
                d.ecoOnlyCores(), cores, d.ecoOnlyCores(), d.declaredEcoCores(), cores, ecoNodes(context, eligible),
                d.performanceCores(), 1 + headroom, cores, need)
                : "no CPU figures: need=ceil(%d x %s/%d)=%d".formatted(context.clusterPerformancePods(), 1 + headroom, perNode, need);
        long gpuEco = gpuEcoNodes(context, eligible);
        return "hp=max(%d-eco%s, need) in [%d,%d]=%d; %s".formatted(n, context.gpuDemand().known() ? "-gpuEco(" + gpuEco + ")" : "",
                bounds.min(), bounds.upper(n), hp, how);
    }

    /** The eco pool: the eco-only and declared work in nodes (none without CPU figures). */
    private static long ecoNodes(ClusterContext context, List<ManagedNode> eligible) {
        double cores = meanCores(eligible);
        ClusterContext.CpuDemand d = context.demand();
        if (!(cores > 0 && d.known())) {
            return 0;
        }
        return Math.max((long) Math.ceil(d.ecoOnlyCores() / cores - 1e-9),
                (long) Math.floor((d.ecoOnlyCores() + d.declaredEcoCores()) / cores + 1e-9));
    }

    /** The performance nodes the performance-only demand fills with this headroom. */
    private long need(ClusterContext context, List<ManagedNode> eligible, double spare) {
        double cores = meanCores(eligible);
        ClusterContext.CpuDemand d = context.demand();
        if (cores > 0 && d.known()) {
            return (long) Math.ceil(d.performanceCores() * (1 + spare) / cores - 1e-9);
        }
        return (long) Math.ceil(context.clusterPerformancePods() * (1 + spare) / perNode - 1e-9);
    }

    private static double meanCores(List<ManagedNode> eligible) {
        return eligible.stream().mapToDouble(ManagedNode::cpuCores).filter(x -> x > 0).average().orElse(0);
    }
}
