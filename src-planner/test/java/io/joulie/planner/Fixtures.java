package io.joulie.planner;

import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;

/** Small builders for planner tests. */
final class Fixtures {
    static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");

    private Fixtures() {
    }

    static ManagedNode perf(String name, String... pods) {
        return node(name, PowerState.ActivePerformance, pods);
    }

    static ManagedNode eco(String name, String... pods) {
        return node(name, PowerState.ActiveEco, pods);
    }

    static ManagedNode draining(String name, String... pods) {
        return node(name, PowerState.DrainingPerformance, pods);
    }

    static ManagedNode node(String name, PowerState state, String... pods) {
        return new ManagedNode(name, Map.of(), false, state, T0, List.of(pods));
    }

    static ManagedNode cordoned(ManagedNode n) {
        return new ManagedNode(n.name(), n.labels(), true, n.state(), n.since(), n.performancePods());
    }

    static ManagedNode since(ManagedNode n, Instant since) {
        return new ManagedNode(n.name(), n.labels(), n.cordoned(), n.state(), since, n.performancePods());
    }

    /** {@code count} ActivePerformance nodes without pods, named n1..nN (zero padded so name order = index order). */
    static List<ManagedNode> perfNodes(int count) {
        return IntStream.rangeClosed(1, count).mapToObj(i -> perf("n%02d".formatted(i))).toList();
    }

    static ClusterContext context(List<ManagedNode> nodes, long perfPods) {
        List<ManagedNode> sorted = new ArrayList<>(nodes);
        sorted.sort(Comparator.comparing(ManagedNode::name));
        return new ClusterContext(T0, sorted, perfPods);
    }

    static ClusterContext context(ManagedNode... nodes) {
        return context(Arrays.asList(nodes), 0);
    }

    static long count(Map<String, Profile> targets, Profile p) {
        return targets.values().stream().filter(v -> v == p).count();
    }

    /** Targets as a sorted "name=profile" map, convenient for table comparison. */
    static Map<String, String> compact(Map<String, Profile> targets) {
        Map<String, String> m = new TreeMap<>();
        targets.forEach((k, v) -> m.put(k, v.value()));
        return m;
    }

    /** The eco node names of {@code targets}, sorted. */
    static List<String> ecoNodes(Map<String, Profile> targets) {
        return targets.entrySet().stream().filter(e -> e.getValue() == Profile.ECO).map(Map.Entry::getKey).sorted().toList();
    }
}
