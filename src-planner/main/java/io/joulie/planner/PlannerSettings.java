package io.joulie.planner;

import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfileSpec.CpuPower;
import io.joulie.api.v1alpha1.NodePowerProfileSpec.GpuPower;
import io.joulie.api.v1alpha1.Profile;

import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.TreeMap;

/**
 * The planner's validated settings (see docs/configuration.md). Out-of-range numbers are not errors:
 * the policies define how they are clamped. Each is declared once, with all its names, default and checks, in
 * {@link PlannerSetting}.
 *
 * @param policyType          base policy in force
 * @param staticHpFrac        static_partition share of performance nodes
 * @param queueHpBaseFrac     queue_aware_v1 base share
 * @param queueHpMin          queue_aware_v1 lower bound on performance nodes
 * @param queueHpMax          queue_aware_v1 upper bound on performance nodes
 * @param queuePerfPerHpNode  performance-only pods one performance node absorbs
 * @param performanceCapWatts CPU cap of the performance profile, watts for the node, when given in watts
 * @param performanceCapPercent CPU cap of the performance profile, percent of each package's maximum (unless watts are given)
 * @param ecoCapWatts         CPU cap of the eco profile, watts, when given in watts
 * @param ecoCapPercent       CPU cap of the eco profile, percent (unless watts are given)
 * @param gpuPerformanceCapWattsPerGpu GPU cap of the performance profile, watts per board, when given in watts
 * @param gpuPerformanceCapPercent     GPU cap of the performance profile, percent of each board's maximum
 * @param gpuEcoCapWattsPerGpu         GPU cap of the eco profile, watts per board, when given in watts
 * @param gpuEcoCapPercent             GPU cap of the eco profile, percent
 * @param escalation          what to do when a drain outlasts the timeout
 * @param downgradeTimeout    how long a node may stay DrainingPerformance before escalation
 * @param reconcileInterval   tick interval (also the rule_swap_v1 phase length)
 * @param settleTime          how long a draining node must show no performance-only pod before it commits eco
 * @param capConfirmationTimeout how long a node may wait for its agent to confirm the performance cap before a
 *                            Warning names it
 * @param maxTransitionsPerTick at most this many nodes change state per reconcile interval, ticks and rechecks together
 *                            (rescues always go; decision 154)
 * @param maxEvictionsPerTick at most this many pods are evicted per reconcile interval
 * @param demandHeadroomFrac  demand_sized_v1: spare share of performance capacity on top of the performance-only demand
 * @param ecoCapWattsByType   eco CPU cap in watts of the nodes of a type (their {@code node.kubernetes.io/instance-type}
 *                            label), instead of {@code ecoCapWatts} or {@code ecoCapPercent}
 */
public record PlannerSettings(
        PolicyType policyType,
        double staticHpFrac,
        double queueHpBaseFrac,
        int queueHpMin,
        int queueHpMax,
        int queuePerfPerHpNode,
        OptionalDouble performanceCapWatts,
        double performanceCapPercent,
        OptionalDouble ecoCapWatts,
        double ecoCapPercent,
        OptionalDouble gpuPerformanceCapWattsPerGpu,
        double gpuPerformanceCapPercent,
        OptionalDouble gpuEcoCapWattsPerGpu,
        double gpuEcoCapPercent,
        Escalation escalation,
        Duration downgradeTimeout,
        Duration reconcileInterval,
        Duration settleTime,
        Duration capConfirmationTimeout,
        int maxTransitionsPerTick,
        int maxEvictionsPerTick,
        double demandHeadroomFrac,
        Map<String, Double> ecoCapWattsByType) {

    public PlannerSettings {
        // sorted by type, so that the settings print and compare the same way every time
        ecoCapWattsByType = Collections.unmodifiableMap(new TreeMap<>(ecoCapWattsByType));
    }

    private static final PlannerSettings DEFAULTS = PlannerSetting.documentedDefaults();

    /** The documented defaults. */
    public static PlannerSettings defaults() {
        return DEFAULTS;
    }

    /** A builder starting from these settings. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    public PlannerSettings withPolicy(PolicyType type) {
        return toBuilder().policyType(type).build();
    }

    /** A profile's caps: each family's watts where given, else its percent (the eco caps of nodes whose type has none of its own). */
    public ProfileCaps caps(Profile profile) {
        boolean performance = profile == Profile.PERFORMANCE;
        return new ProfileCaps(cpu(performance ? performanceCapWatts : ecoCapWatts, performance ? performanceCapPercent : ecoCapPercent),
                gpu(performance ? gpuPerformanceCapWattsPerGpu : gpuEcoCapWattsPerGpu, performance ? gpuPerformanceCapPercent : gpuEcoCapPercent));
    }

    private static CpuPower cpu(OptionalDouble watts, double percent) {
        return watts.isPresent() ? CpuPower.watts(watts.getAsDouble()) : CpuPower.percent(percent);
    }

    private static GpuPower gpu(OptionalDouble watts, double percent) {
        return watts.isPresent() ? GpuPower.watts(watts.getAsDouble()) : GpuPower.percent(percent);
    }

    /** A profile's caps on a node with these labels: eco's CPU cap is that of the node's type, when one is set. */
    public ProfileCaps caps(Profile profile, Map<String, String> nodeLabels) {
        ProfileCaps caps = caps(profile);
        if (profile == Profile.PERFORMANCE || ecoCapWattsByType.isEmpty()) {
            return caps;
        }
        String type = nodeLabels.get(JoulieApi.NODE_TYPE_LABEL);
        Double watts = type == null ? null : ecoCapWattsByType.get(type);
        return watts == null ? caps : new ProfileCaps(CpuPower.watts(watts), caps.gpu());
    }

    /** Settings one at a time, starting from others: {@code defaults().toBuilder().staticHpFrac(0.75).build()}. */
    public static final class Builder {
        private PolicyType policyType;
        private double staticHpFrac;
        private double queueHpBaseFrac;
        private int queueHpMin;
        private int queueHpMax;
        private int queuePerfPerHpNode;
        private OptionalDouble performanceCapWatts;
        private double performanceCapPercent;
        private OptionalDouble ecoCapWatts;
        private double ecoCapPercent;
        private OptionalDouble gpuPerformanceCapWattsPerGpu;
        private double gpuPerformanceCapPercent;
        private OptionalDouble gpuEcoCapWattsPerGpu;
        private double gpuEcoCapPercent;
        private Escalation escalation;
        private Duration downgradeTimeout;
        private Duration reconcileInterval;
        private Duration settleTime;
        private Duration capConfirmationTimeout;
        private int maxTransitionsPerTick;
        private int maxEvictionsPerTick;
        private double demandHeadroomFrac;
        private Map<String, Double> ecoCapWattsByType = Map.of();

        Builder() {
        }

        private Builder(PlannerSettings s) {
            policyType = s.policyType;
            staticHpFrac = s.staticHpFrac;
            queueHpBaseFrac = s.queueHpBaseFrac;
            queueHpMin = s.queueHpMin;
            queueHpMax = s.queueHpMax;
            queuePerfPerHpNode = s.queuePerfPerHpNode;
            performanceCapWatts = s.performanceCapWatts;
            performanceCapPercent = s.performanceCapPercent;
            ecoCapWatts = s.ecoCapWatts;
            ecoCapPercent = s.ecoCapPercent;
            gpuPerformanceCapWattsPerGpu = s.gpuPerformanceCapWattsPerGpu;
            gpuPerformanceCapPercent = s.gpuPerformanceCapPercent;
            gpuEcoCapWattsPerGpu = s.gpuEcoCapWattsPerGpu;
            gpuEcoCapPercent = s.gpuEcoCapPercent;
            escalation = s.escalation;
            downgradeTimeout = s.downgradeTimeout;
            reconcileInterval = s.reconcileInterval;
            settleTime = s.settleTime;
            capConfirmationTimeout = s.capConfirmationTimeout;
            maxTransitionsPerTick = s.maxTransitionsPerTick;
            maxEvictionsPerTick = s.maxEvictionsPerTick;
            demandHeadroomFrac = s.demandHeadroomFrac;
            ecoCapWattsByType = s.ecoCapWattsByType;
        }

        public Builder policyType(PolicyType v) {
            policyType = v;
            return this;
        }

        public Builder staticHpFrac(double v) {
            staticHpFrac = v;
            return this;
        }

        public Builder queueHpBaseFrac(double v) {
            queueHpBaseFrac = v;
            return this;
        }

        public Builder queueHpMin(int v) {
            queueHpMin = v;
            return this;
        }

        public Builder queueHpMax(int v) {
            queueHpMax = v;
            return this;
        }

        public Builder queuePerfPerHpNode(int v) {
            queuePerfPerHpNode = v;
            return this;
        }

        public Builder performanceCapWatts(OptionalDouble v) {
            performanceCapWatts = v;
            return this;
        }

        public Builder performanceCapPercent(double v) {
            performanceCapPercent = v;
            return this;
        }

        public Builder ecoCapWatts(OptionalDouble v) {
            ecoCapWatts = v;
            return this;
        }

        public Builder ecoCapPercent(double v) {
            ecoCapPercent = v;
            return this;
        }

        public Builder gpuPerformanceCapWattsPerGpu(OptionalDouble v) {
            gpuPerformanceCapWattsPerGpu = v;
            return this;
        }

        public Builder gpuPerformanceCapPercent(double v) {
            gpuPerformanceCapPercent = v;
            return this;
        }

        public Builder gpuEcoCapWattsPerGpu(OptionalDouble v) {
            gpuEcoCapWattsPerGpu = v;
            return this;
        }

        public Builder gpuEcoCapPercent(double v) {
            gpuEcoCapPercent = v;
            return this;
        }

        public Builder escalation(Escalation v) {
            escalation = v;
            return this;
        }

        public Builder downgradeTimeout(Duration v) {
            downgradeTimeout = v;
            return this;
        }

        public Builder reconcileInterval(Duration v) {
            reconcileInterval = v;
            return this;
        }

        public Builder settleTime(Duration v) {
            settleTime = v;
            return this;
        }

        public Builder capConfirmationTimeout(Duration v) {
            capConfirmationTimeout = v;
            return this;
        }

        public Builder maxTransitionsPerTick(int v) {
            maxTransitionsPerTick = v;
            return this;
        }

        public Builder maxEvictionsPerTick(int v) {
            maxEvictionsPerTick = v;
            return this;
        }

        public Builder demandHeadroomFrac(double v) {
            demandHeadroomFrac = v;
            return this;
        }

        public Builder ecoCapWattsByType(Map<String, Double> v) {
            ecoCapWattsByType = v;
            return this;
        }

        public PlannerSettings build() {
            return new PlannerSettings(policyType, staticHpFrac, queueHpBaseFrac, queueHpMin, queueHpMax, queuePerfPerHpNode,
                    performanceCapWatts, performanceCapPercent, ecoCapWatts, ecoCapPercent, gpuPerformanceCapWattsPerGpu,
                    gpuPerformanceCapPercent, gpuEcoCapWattsPerGpu, gpuEcoCapPercent, escalation, downgradeTimeout, reconcileInterval,
                    settleTime, capConfirmationTimeout, maxTransitionsPerTick, maxEvictionsPerTick, demandHeadroomFrac,
                    ecoCapWattsByType);
        }
    }
}
