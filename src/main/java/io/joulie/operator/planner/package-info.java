/**
 * The pure planning core: {@link io.joulie.operator.planner.ContextProvider#snapshot()} →
 * {@link io.joulie.operator.planner.PolicyModule#plan} → {@link io.joulie.operator.planner.StateGuard#check}
 * → {@link io.joulie.operator.planner.ActuationAdapter}. Nothing in this package talks to Kubernetes; the
 * operator's tick and the simulator call the very same classes.
 */
package io.joulie.operator.planner;
