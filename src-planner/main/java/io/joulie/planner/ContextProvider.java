package io.joulie.planner;

import java.util.Collection;

/** Produces the planner's view of the cluster; the operator's implementation reads informer caches. */
public interface ContextProvider {
    /**
     * The whole cluster, with this tick's telemetry read within {@code telemetryBudget} (what is not read by then counts
     * as unavailable): what a tick plans on.
     */
    ClusterContext snapshot(java.time.Duration telemetryBudget);

    /**
     * Only the named nodes that are managed (and not excluded), without telemetry and without nodes to release: what the
     * guard's recheck between ticks looks at ({@link Planner#recheck}).
     */
    ClusterContext snapshotOf(Collection<String> nodes);
}
