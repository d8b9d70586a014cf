package io.joulie.operator.cluster;

import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * When the Pod watch showed each active performance-only Pod on its node, and when each node last had one: what the
 * contract needs beyond the Pod index ({@link PodFacts}) (how long a Pod ran under an eco cap; how long a drain has been quiet).
 * Only performance-only Pods are kept, so it is small. It lives in memory: nothing is known of what happened on a node
 * before the watch first showed it (after a restart, before the operator started), so a node counts as quiet only
 * since then (a drain commits eco at the earliest one settle time after that).
 */
public final class PodSightings {
    private record Sighting(String node, Instant at) {
    }

    private final Clock clock;
    private final Function<String, Set<String>> performanceOn;
    private final Predicate<String> nodeExists;
    private final Map<String, Sighting> pods = new ConcurrentHashMap<>();
    private final Map<String, Instant> lastOnNode = new ConcurrentHashMap<>();
    private final Map<String, Instant> nodeSince = new ConcurrentHashMap<>();
    private final Instant began;

    /**
     * @param performanceOn the keys of a node's active performance-only Pods, as the Pod index has them ({@link PodFacts})
     * @param nodeExists    whether the Node is in the informer's store (a node that is gone keeps no sighting)
     */
    public PodSightings(Clock clock, Function<String, Set<String>> performanceOn, Predicate<String> nodeExists) {
        this.clock = clock;
        this.performanceOn = performanceOn;
        this.nodeExists = nodeExists;
        this.began = clock.instant();
    }

    /**
     * The watch delivered something about Pod {@code key}, which was on {@code before} and is on {@code after} ("" or
     * null when unscheduled or gone). Returns whether a performance-only Pod arrived on, or left, a node.
     */
    public boolean seen(String key, String before, String after) {
        Instant now = clock.instant();
        boolean performanceNow = after != null && !after.isEmpty() && performanceOn.apply(after).contains(key);
        Sighting was = pods.get(key);
        if (performanceNow && (was == null || !was.node().equals(after))) {
            pods.put(key, new Sighting(after, now));
            lastOnNode.remove(after);
            if (was != null) {
                left(was.node(), now);
            }
            return true;
        }
        if (!performanceNow && was != null) {
            left(was.node(), now); // before the Pod's sighting goes: whoever sees it gone sees the node's moment too
            pods.remove(key);
            return true;
        }
        return performanceNow;
    }

    private void left(String node, Instant now) {
        if (performanceOn.apply(node).isEmpty() && nodeExists.test(node)) {
            lastOnNode.put(node, now);
        }
    }

    /** The Node watch showed {@code node} for the first time (its initial list, or a node that joined). */
    public void nodeSeen(String node) {
        nodeSince.putIfAbsent(node, clock.instant());
    }

    /** The node was deleted: what was seen on it no longer says anything about a node that may come by its name. */
    public void forget(String node) {
        lastOnNode.remove(node);
        nodeSince.remove(node);
    }

    /** When the watch first showed the performance-only Pod {@code key} on its current node, if it did. */
    public Instant firstSeen(String key) {
        Sighting s = pods.get(key);
        return s == null ? null : s.at();
    }

    /**
     * When {@code node}'s last performance-only Pod left it; when none left since the watch first showed the node, then
     * (what happened before is not known).
     */
    public Instant lastOn(String node) {
        Instant last = lastOnNode.get(node);
        return last != null ? last : nodeSince.getOrDefault(node, began);
    }
}
