package io.joulie.planner;

import io.joulie.api.v1alpha1.Profile;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which nodes become eco when a policy wants {@code hp} of {@code n} eligible nodes in performance.
 *
 * <p>The anti-churn rule: as few nodes as possible change state and as few drains as possible start.
 * Eco candidates are ranked, and the first {@code n - hp} become eco:
 * <ol>
 *   <li>nodes already ActiveEco (no change),</li>
 *   <li>nodes already DrainingPerformance (no change, the drain was already started),</li>
 *   <li>ActivePerformance nodes with no performance-only pods (a change, but no drain),</li>
 *   <li>ActivePerformance nodes with performance-only pods (a drain starts);</li>
 * </ol>
 * ties broken by node name. Everything else is performance. When the policy knows the GPU demand, GPU servers not
 * needed by performance-only GPU work go eco first ({@link #assign(List, int, int)}).
 */
public final class EcoSelection {
    private EcoSelection() {
    }

    static int rank(ManagedNode n) {
        return switch (n.state()) {
            case ActiveEco -> 0;
            case DrainingPerformance -> 1;
            case ActivePerformance -> n.hasPerformancePods() ? 3 : 2;
        };
    }

    private static final Comparator<ManagedNode> ECO_FIRST =
            Comparator.comparingInt(EcoSelection::rank).thenComparing(ManagedNode::name);

    /** Targets for {@code eligible}: {@code hp} (clamped to [0, n]) performance, the rest eco. */
    public static Map<String, Profile> assign(List<ManagedNode> eligible, int hp) {
        int n = eligible.size();
        int eco = n - Math.max(0, Math.min(hp, n));
        List<ManagedNode> ranked = eligible.stream().sorted(ECO_FIRST).toList();
        Map<String, Profile> targets = new HashMap<>(n * 2);
        for (int i = 0; i < n; i++) {
            targets.put(ranked.get(i).name(), i < eco ? Profile.ECO : Profile.PERFORMANCE);
        }
        return targets;
    }

    /** Whether the node holds GPU boards (its agent's inventory, else the GPUs its Node advertises). */
    public static boolean hasGpus(ManagedNode n) {
        return n.power().gpus() > 0;
    }

    /**
     * GPU-aware targets (decision 193): {@code hp} performance nodes as {@link #assign(List, int)}, except that the GPU
     * servers go eco first, all but {@code gpuKeep} of them (those the anti-churn rank would keep longest), and the kept
     * ones go eco last, after the nodes without boards. A GPU board under the eco limit saves more per node than a CPU server's packages,
     * and boards are allocated whole, so the GPU work that may be slowed is the GPU work that is not performance-only:
     * the caller keeps the GPU servers the performance-only boards need.
     */
    public static Map<String, Profile> assign(List<ManagedNode> eligible, int hp, int gpuKeep) {
        int n = eligible.size();
        int eco = n - Math.max(0, Math.min(hp, n));
        java.util.Set<String> surplus = surplusGpuServers(eligible, gpuKeep);
        List<ManagedNode> ranked = eligible.stream().sorted(Comparator.<ManagedNode>comparingInt(m -> gpuGroup(m, surplus))
                .thenComparing(ECO_FIRST)).toList();
        Map<String, Profile> targets = new HashMap<>(n * 2);
        for (int i = 0; i < n; i++) {
            targets.put(ranked.get(i).name(), i < eco ? Profile.ECO : Profile.PERFORMANCE);
        }
        return targets;
    }

    /**
     * Where a node ranks for eco when the GPU demand is known: 0 the GPU servers in {@code surplus}, 1 the nodes without
     * boards, 2 the GPU servers the performance-only GPU work keeps (they go eco last).
     */
    static int gpuGroup(ManagedNode m, java.util.Set<String> surplus) {
        return surplus.contains(m.name()) ? 0 : hasGpus(m) ? 2 : 1;
    }

    /**
     * The GPU servers that go eco before every other node: all eligible ones but the {@code gpuKeep} the anti-churn rank
     * would keep longest.
     */
    public static java.util.Set<String> surplusGpuServers(List<ManagedNode> eligible, int gpuKeep) {
        List<ManagedNode> gpu = eligible.stream().filter(EcoSelection::hasGpus).sorted(ECO_FIRST).toList();
        int first = Math.max(0, gpu.size() - Math.max(0, gpuKeep));
        java.util.Set<String> names = new java.util.HashSet<>();
        gpu.subList(0, first).forEach(m -> names.add(m.name()));
        return names;
    }

    /** {@code round(n × frac)}, rounding half up on the decimal value of {@code frac}. */
    public static int roundHalfUp(int n, double frac) {
        return BigDecimal.valueOf(frac).multiply(BigDecimal.valueOf(n)).setScale(0, RoundingMode.HALF_UP).intValueExact();
    }

    /** {@code frac} clamped to [0, 1]; NaN counts as 0. */
    public static double clampFraction(double frac) {
        return Double.isNaN(frac) ? 0 : Math.max(0, Math.min(1, frac));
    }
}
