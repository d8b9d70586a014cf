package io.joulie.planner;

import java.util.Collection;

/** Produces the planner's view of the cluster; the operator's implementation reads informer caches. */
public interface ContextProvider {
    /** The whole cluster, with this tick's telemetry: what a tick plans on. */
    ClusterContext snapshot();

    /**
     * Only the named nodes that are managed (and not excluded), without telemetry and without nodes to release: what the
     * guard's recheck between ticks looks at ({@link Planner#recheck}).
     */
    ClusterContext snapshotOf(Collection<String> nodes);
}
