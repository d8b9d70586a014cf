/**
 * The pure planning core: {@link io.joulie.planner.ContextProvider#snapshot(java.time.Duration)} →
 * {@link io.joulie.planner.PolicyModule#plan} → {@link io.joulie.planner.StateGuard#check}
 * → {@link io.joulie.planner.ActuationAdapter}. Nothing in this package talks to Kubernetes; the
 * operator's tick and the simulator call the very same classes.
 */
package io.joulie.planner;
