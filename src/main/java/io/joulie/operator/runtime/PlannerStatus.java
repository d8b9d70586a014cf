package io.joulie.operator.runtime;

import io.joulie.api.v1alpha1.JoulieStatus;
import io.joulie.api.v1alpha1.JoulieStatusAggregator.Problem;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What the leader's planning ticks report to the {@code Joulie} resource: nodes by state, the nodes left
 * out of planning, and problems that make the installation Degraded. Listeners (the Joulie reconciler)
 * hear only of reports that differ from the previous one, so a steady cluster causes no status writes.
 */
@ApplicationScoped
public class PlannerStatus {
    private final Published<Report> report = new Published<>(Objects::equals);

    /**
     * Nodes by state, the nodes left out of planning, the problems planning found (TelemetryUnavailable, ...) and the
     * budget count held while telemetry is out (null when none).
     */
    public record Report(JoulieStatus.Nodes nodes, List<JoulieStatus.ExcludedNode> excluded, List<Problem> problems,
                         JoulieStatus.BudgetHold budgetHold) {
        public Report {
            excluded = List.copyOf(excluded);
            problems = List.copyOf(problems);
        }

        public Report(JoulieStatus.Nodes nodes, List<JoulieStatus.ExcludedNode> excluded, List<Problem> problems) {
            this(nodes, excluded, problems, null);
        }
    }

    public void publish(Report r) {
        report.publish(r);
    }

    /** The last report of this replica's planner, if it has planned. */
    public Optional<Report> latest() {
        return report.latest();
    }

    public void onChange(Runnable listener) {
        report.onChange(listener);
    }
}
