package io.joulie.planner;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Which eligible nodes are hot: above the threshold by their own CPU temperature, or in a rack whose mean is, with
 * hysteresis (a hot node or rack cools down only below threshold minus the band). A node without a reading keeps
 * what its last reading said; while telemetry is unavailable the last hot sets are held.
 */
final class HotspotRule {
    /** Hot nodes this tick, why, their temperatures, and the hysteresis state to carry. */
    record Heat(Set<String> hot, Map<String, String> why, Map<String, Double> celsius, Set<String> hotNodes,
                Set<String> hotRacks) {
        static final Heat NONE = new Heat(Set.of(), Map.of(), Map.of(), Set.of(), Set.of());
    }

    private final PolicyRules.Hotspots hotspots;
    private final String rackLabel;

    private HotspotRule(PolicyRules.Hotspots hotspots, String rackLabel) {
        this.hotspots = hotspots;
        this.rackLabel = rackLabel;
    }

    /** The heat of this tick under {@code rules} ({@link Heat#NONE} without a hotspot rule). */
    static Heat heat(PolicyRules rules, ClusterContext ctx, RuleState previous) {
        return rules.hotspots() == null ? Heat.NONE : new HotspotRule(rules.hotspots(), rules.rackLabel()).heat(ctx, previous);
    }

    private Heat heat(ClusterContext ctx, RuleState previous) {
        Telemetry telemetry = ctx.telemetry();
        Set<String> hotNodes = new HashSet<>();
        Set<String> hotRacks = new HashSet<>();
        Map<String, Double> celsius = new HashMap<>();
        if (telemetry.status() == Telemetry.Status.UNAVAILABLE) {
            hotNodes.addAll(previous.hotNodes());
            hotRacks.addAll(previous.hotRacks());
        } else {
            Map<String, double[]> racks = new HashMap<>(); // rack -> {sum, count}
            for (ManagedNode m : ctx.nodes()) {
                var t = telemetry.temperature(m.name());
                boolean wasHot = previous.hotNodes().contains(m.name());
                if (t.isEmpty()) {
                    if (wasHot) {
                        hotNodes.add(m.name()); // no reading: keep what the last reading said
                    }
                    continue;
                }
                double c = t.get().value();
                celsius.put(m.name(), c);
                if (hotspots.hot(c, wasHot)) {
                    hotNodes.add(m.name());
                }
                String rack = m.labels().get(rackLabel);
                if (rack != null) {
                    double[] acc = racks.computeIfAbsent(rack, r -> new double[2]);
                    acc[0] += c;
                    acc[1]++;
                }
            }
            for (String rack : previous.hotRacks()) {
                if (!racks.containsKey(rack)) {
                    hotRacks.add(rack);
                }
            }
            racks.forEach((rack, acc) -> {
                if (hotspots.hot(acc[0] / acc[1], previous.hotRacks().contains(rack))) {
                    hotRacks.add(rack);
                }
            });
        }
        String threshold = RuleEngine.number(hotspots.thresholdCelsius()) + " °C";
        Set<String> hot = new HashSet<>();
        Map<String, String> why = new HashMap<>();
        for (ManagedNode m : ctx.eligible()) {
            String rack = m.labels().get(rackLabel);
            if (hotNodes.contains(m.name())) {
                hot.add(m.name());
                why.put(m.name(), "hotspot: node above " + threshold);
            } else if (rack != null && hotRacks.contains(rack)) {
                hot.add(m.name());
                why.put(m.name(), "hotspot: rack " + rack + " above " + threshold + " on average");
            }
        }
        return new Heat(hot, why, celsius, hotNodes, hotRacks);
    }
}
