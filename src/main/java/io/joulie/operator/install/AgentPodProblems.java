package io.joulie.operator.install;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatus;
import io.joulie.api.v1alpha1.ConditionReason;
import io.joulie.api.v1alpha1.JoulieStatusAggregator.Problem;
import io.joulie.operator.metrics.AgentPodMetrics;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Why agent pods do not run, from what the cluster says about them: the DaemonSet controller's {@code FailedCreate}
 * Events while pods are missing (admission refused them: Pod Security, an SCC, a quota, an admission policy), the
 * scheduler's {@code PodScheduled=False} condition on pods it cannot place, and the kubelet's waiting reasons on pods
 * that were placed but do not start. Pure: the caller hands in what its informers hold.
 */
public final class AgentPodProblems {
    /** What was found: the problems for the status, and the counts for {@code joulie_agent_pods}. */
    public record Found(List<Problem> problems, AgentPodMetrics.Counts counts) {
    }

    /** Waiting reasons of a container that will not start by itself. */
    static final Set<String> STUCK = Set.of("ErrImagePull", "ImagePullBackOff", "InvalidImageName", "CrashLoopBackOff",
            "CreateContainerConfigError", "CreateContainerError", "RunContainerError");
    /** At most this many pods are named in a message. */
    static final int NAMED = 3;

    private AgentPodProblems() {
    }

    /**
     * @param daemonSet the agent DaemonSet as last seen
     * @param pods      the agent DaemonSet's pods
     * @param events    Events of the operator's namespace (only those about the DaemonSet and its pods count)
     */
    public static Found of(DaemonSet daemonSet, Collection<Pod> pods, Collection<Event> events) {
        List<Problem> found = new ArrayList<>();
        refused(daemonSet, events).ifPresent(found::add);
        DaemonSetStatus s = daemonSet.getStatus();
        List<String> unschedulable = new ArrayList<>();
        List<String> failing = new ArrayList<>();
        for (Pod p : pods.stream().sorted(Comparator.comparing(p -> p.getMetadata().getName())).toList()) {
            unscheduled(p).ifPresent(why -> unschedulable.add(p.getMetadata().getName() + ": " + why));
            stuck(p).ifPresent(why -> failing.add(p.getMetadata().getName() + " on " + p.getSpec().getNodeName() + ": " + why));
        }
        if (!unschedulable.isEmpty()) {
            found.add(new Problem(ConditionReason.AgentPodsUnschedulable,
                    count(unschedulable.size()) + " cannot be scheduled: " + named(unschedulable)));
        }
        if (!failing.isEmpty()) {
            found.add(new Problem(ConditionReason.AgentPodsFailing, count(failing.size()) + " not running: " + named(failing)));
        }
        int desired = number(s == null ? null : s.getDesiredNumberScheduled());
        return new Found(found, new AgentPodMetrics.Counts(desired, number(s == null ? null : s.getNumberReady()),
                Math.max(0, desired - number(s == null ? null : s.getCurrentNumberScheduled())), unschedulable.size(), failing.size()));
    }

    private static int number(Integer n) {
        return n == null ? 0 : n;
    }

    /** Pods missing (fewer created than the nodes selected) and the controller's latest FailedCreate Event says why. */
    private static Optional<Problem> refused(DaemonSet ds, Collection<Event> events) {
        DaemonSetStatus s = ds.getStatus();
        int desired = number(s == null ? null : s.getDesiredNumberScheduled());
        int created = number(s == null ? null : s.getCurrentNumberScheduled());
        if (created >= desired) {
            return Optional.empty();
        }
        return events.stream()
                .filter(e -> "FailedCreate".equals(e.getReason()) && e.getInvolvedObject() != null
                        && "DaemonSet".equals(e.getInvolvedObject().getKind())
                        && ds.getMetadata().getName().equals(e.getInvolvedObject().getName())
                        && (e.getInvolvedObject().getUid() == null || e.getInvolvedObject().getUid().equals(ds.getMetadata().getUid())))
                .max(Comparator.comparing(AgentPodProblems::lastSeen))
                .map(e -> new Problem(ConditionReason.AgentPodsRefused, (desired - created) + " of " + desired
                        + " agent pods cannot be created: " + e.getMessage()));
    }

    private static Optional<String> unscheduled(Pod p) {
        if (p.getStatus() == null || p.getStatus().getConditions() == null || p.getSpec().getNodeName() != null) {
            return Optional.empty();
        }
        return p.getStatus().getConditions().stream()
                .filter(c -> "PodScheduled".equals(c.getType()) && "False".equals(c.getStatus()))
                .findFirst().map(AgentPodProblems::describe);
    }

    private static String describe(PodCondition c) {
        return Objects.requireNonNullElse(c.getReason(), "Unschedulable") + (c.getMessage() == null ? "" : " (" + c.getMessage() + ")");
    }

    private static Optional<String> stuck(Pod p) {
        if (p.getStatus() == null || p.getStatus().getContainerStatuses() == null) {
            return Optional.empty();
        }
        for (ContainerStatus c : p.getStatus().getContainerStatuses()) {
            var waiting = c.getState() == null ? null : c.getState().getWaiting();
            if (waiting != null && STUCK.contains(waiting.getReason())) {
                return Optional.of(waiting.getReason() + (waiting.getMessage() == null ? "" : " (" + waiting.getMessage() + ")"));
            }
        }
        return Optional.empty();
    }

    private static String count(int n) {
        return n == 1 ? "1 agent pod" : n + " agent pods";
    }

    private static String named(List<String> items) {
        String shown = String.join("; ", items.subList(0, Math.min(NAMED, items.size())));
        return items.size() > NAMED ? shown + "; +" + (items.size() - NAMED) + " more" : shown;
    }

    /** When an Event was last seen: its series, its last timestamp, its event time, else its creation. */
    static Instant lastSeen(Event e) {
        for (String t : new String[] {e.getLastTimestamp(), e.getEventTime() == null ? null : e.getEventTime().getTime(),
                e.getFirstTimestamp(), e.getMetadata() == null ? null : e.getMetadata().getCreationTimestamp()}) {
            if (t != null && !t.isBlank()) {
                try {
                    return java.time.OffsetDateTime.parse(t).toInstant();
                } catch (java.time.format.DateTimeParseException ignored) {
                    // not RFC 3339: try the next field
                }
            }
        }
        return Instant.EPOCH;
    }
}
