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
 * ties broken by node name. Everything else is performance.
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

    /** {@code round(n × frac)}, rounding half up on the decimal value of {@code frac}. */
    public static int roundHalfUp(int n, double frac) {
        return BigDecimal.valueOf(frac).multiply(BigDecimal.valueOf(n)).setScale(0, RoundingMode.HALF_UP).intValueExact();
    }

    /** {@code frac} clamped to [0, 1]; NaN counts as 0. */
    public static double clampFraction(double frac) {
        return Double.isNaN(frac) ? 0 : Math.max(0, Math.min(1, frac));
    }
}
