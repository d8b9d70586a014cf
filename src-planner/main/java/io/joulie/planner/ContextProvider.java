package io.joulie.planner;

/** Produces the planner's view of the cluster; the operator's implementation reads informer caches. */
public interface ContextProvider {
    ClusterContext snapshot();
}
